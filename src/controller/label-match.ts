/** Label-selector matching for cached objects (equality labels plus set-based expressions). */
import type { CollectionQuery } from "../runtime/index.js";

export function matchesQuery(object: { metadata?: { namespace?: string; labels?: Record<string, string> } }, query: CollectionQuery): boolean {
  if (query.namespace !== undefined && object.metadata?.namespace !== query.namespace) return false;
  const labels = object.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(query.matchLabels)) {
    if (labels[key] !== value) return false;
  }
  for (const expression of query.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In": if (value === undefined || !values.includes(value)) return false; break;
      case "NotIn": if (value !== undefined && values.includes(value)) return false; break;
      case "Exists": if (value === undefined) return false; break;
      case "DoesNotExist": if (value !== undefined) return false; break;
    }
  }
  return true;
}
