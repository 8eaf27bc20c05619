// The compiler's golden files (test/golden/, refreshed only by `npm run refresh:golden`): every
// fixture RGD still compiles to exactly the recorded CRD and pictures, and every recorded CRD is
// accepted by the real API server (server-side dry run).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { GOLDEN_DIR, fixtureNames, goldenFiles } from "../support/golden.js";
import { kubectl } from "../support/test-cluster.js";

const names = fixtureNames();

describe("golden files", () => {
  it("cover every fixture RGD (compiler and runtime fixtures alike)", () => {
    assert.deepEqual(names, [
      "author-conditions",
      "conditions",
      "external-ref",
      "external-refs",
      "foreach-2d",
      "foreach-regions",
      "includewhen-chain",
      "webapp",
    ]);
  });

  for (const name of names) {
    it(`${name}: the CRD and the text, mermaid and dot pictures match test/golden/`, async () => {
      const files = await goldenFiles(name);
      assert.deepEqual(Object.keys(files).sort(), [
        `${name}.crd.yaml`,
        `${name}.graph.dot`,
        `${name}.graph.mmd`,
        `${name}.graph.txt`,
      ]);
      for (const [file, content] of Object.entries(files)) {
        const recorded = readFileSync(path.join(GOLDEN_DIR, file), "utf8");
        assert.equal(
          content,
          recorded,
          `${file} differs from the golden file; if the change is intended, run npm run refresh:golden and review the diff`,
        );
      }
    });

    it(`${name}: the golden CRD is accepted by the API server`, async () => {
      const crd = readFileSync(path.join(GOLDEN_DIR, `${name}.crd.yaml`), "utf8");
      const applied = await kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], crd);
      assert.match(
        applied,
        /customresourcedefinition\.apiextensions\.k8s\.io\/\S+\.kro\.run serverside-applied \(server dry run\)/,
      );
    });
  }
});
