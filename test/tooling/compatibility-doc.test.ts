// Every status field kro-ts adds to a generated CRD beyond kro's own (`state`, `conditions`) is
// named among the deliberate differences in docs/design/compatibility.md: a user diffing kro's
// CRD against ours must find each extra field explained, and a new one cannot ship unlisted.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { buildStatusSchema } from "../../src/schema/index.js";

const root = new URL("../../../", import.meta.url);
const doc = readFileSync(fileURLToPath(new URL("docs/design/compatibility.md", root)), "utf8");

/** The text of one `## ` section of the page. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `no section "${title}" in docs/design/compatibility.md`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** kro v0.9's own status fields of every instance CRD (pkg/graph/builder.go, the status schema). */
const KRO_STATUS_FIELDS = new Set(["state", "conditions"]);

describe("docs/design/compatibility.md", () => {
  it("lists every status field kro-ts adds to a generated CRD among the deliberate differences", () => {
    const added = Object.keys(buildStatusSchema([]).schema.properties ?? {}).filter((f) => !KRO_STATUS_FIELDS.has(f));
    assert.ok(added.length > 0);
    const differences = section("Deliberate differences");
    for (const field of added)
      assert.ok(
        differences.includes(`\`status.${field}\``),
        `status.${field} is not listed among the deliberate differences`,
      );
  });
});
