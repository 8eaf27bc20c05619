/**
 * Rendered objects against their kinds' schemas: the JSON types and the fields kro's parser checks
 * in a CEL template's literals (graph's checkTemplateLiterals), applied to what a Go template
 * rendered. A template dialect child is text until it renders, so a quoted number
 * (`replicas: "{{ .parent.spec.replicas }}"`) shows only here — or when the API server refuses it.
 */
import { formatPath } from "../../diag/index.js";
import { checkTemplateLiterals, type SchemaResolver } from "../../graph/index.js";
import type { KubeJson } from "../../runtime/index.js";

/** One message per mistyped or unknown field, naming the object; kinds no schema source knows are not checked. */
export function renderedTypeErrors(objects: readonly KubeJson[], resolver: SchemaResolver): string[] {
  return objects.flatMap((object) => {
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== "string" || typeof kind !== "string") return [];
    const schema = resolver.resolve(apiVersion, kind)?.schema;
    if (schema === undefined) return [];
    const metadata = object.metadata as { name?: unknown } | undefined;
    const name = typeof metadata?.name === "string" ? metadata.name : "?";
    return checkTemplateLiterals(object, schema, []).map(
      (issue) => `${kind}/${name}: ${formatPath(issue.path)}: ${issue.message}; the API server would refuse it`,
    );
  });
}
