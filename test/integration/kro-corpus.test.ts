// The kro compatibility corpus against the real API server: every CRD recorded for an accepted
// corpus RGD (test/golden/kro-corpus/) is accepted by kube-apiserver (server-side dry run), so
// no status schema the compiler infers is one the API server rejects (items.default, …).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectl } from "../support/test-cluster.js";

const DIR = fileURLToPath(new URL("../../../test/golden/kro-corpus/", import.meta.url));
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".crd.yaml"))
  .sort();

describe("kro corpus CRDs on the API server", () => {
  it("every recorded corpus CRD is accepted by a server-side dry run", async () => {
    assert.ok(files.length >= 90, `only ${files.length} corpus CRDs`);
    const documents = files.map((f) => readFileSync(path.join(DIR, f), "utf8")).join("---\n");
    const applied = await kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], documents);
    const lines = applied
      .trim()
      .split("\n")
      .filter((l) => /serverside-applied \(server dry run\)/.test(l));
    assert.equal(lines.length, files.length, applied);
  });
});
