/**
 * Every chart fixture, imported: the API server accepts its CRD as written, and the example
 * instance (the chart's own defaults) against it — server-side dry-runs, the same checks
 * `kubectl apply` makes. The `schemas` fixture holds what published values schemas write and a CRD
 * cannot hold as written (uniqueItems, required keys the defaults leave out, nullable enums); its
 * render still equals `helm template`'s.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadYaml } from "../../src/api/index.js";
import { runKro } from "../support/cli-session.js";
import { chartFiles, helmObjects, kroObjects } from "../support/helm-import.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix } from "../support/controller.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURES = path.join(ROOT, "test/fixtures/helm");
const suffix = letterSuffix();

interface Crd {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string }[] };
}

describe("imported charts' CRDs and default instances on the real API server", { timeout: 300_000 }, () => {
  let dir = "";
  const created: string[] = [];
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "kro-import-crds-"));
  });
  after(async () => {
    for (const name of created) await kubectl(["delete", "crd", name, "--wait=false", "--ignore-not-found"]);
    await rm(dir, { recursive: true, force: true });
  });

  it("every fixture: the CRD is accepted, and so is the instance of the chart's defaults", async () => {
    const charts = (await readdir(FIXTURES, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.ok(charts.includes("schemas"));
    const refused: string[] = [];
    for (const chart of charts) {
      const out = path.join(dir, chart);
      const group = `${chart}.${suffix}.import.kro.run`;
      await runKro(["import", "helm", path.join(FIXTURES, chart), "-o", out, "--group", group]);
      const crdText = await readFile(path.join(out, "crd.yaml"), "utf8");
      const crd = loadYaml("crd.yaml", crdText).documents[0]?.value as Crd;
      try {
        await kubectl(["apply", "-f", "-"], crdText);
        created.push(crd.metadata.name);
      } catch (error) {
        refused.push(`${chart} CRD: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      await eventually(
        async () => {
          const live = await kubectlJson<Crd>(["get", "crd", crd.metadata.name]);
          assert.equal(live.status?.conditions?.find((c) => c.type === "Established")?.status, "True");
        },
        { timeout: 30_000 },
      );
      try {
        await kubectl(["apply", "--dry-run=server", "-f", path.join(out, "instance.yaml")]);
      } catch (error) {
        refused.push(`${chart} instance: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  it("the schemas fixture renders what helm template renders, with its defaults and with values the schema allows", async () => {
    const chart = path.join(FIXTURES, "schemas");
    const files = await chartFiles(chart);
    for (const values of [{}, { ports: [8080], logLevel: "warn", persistence: { enabled: true, size: "2Gi" } }]) {
      const theirs = await helmObjects(chart, values);
      const ours = kroObjects(files, values);
      assert.deepEqual(ours.errors, []);
      assert.deepEqual([...ours.objects.keys()].sort(), [...theirs.keys()].sort());
      for (const [key, object] of theirs) assert.deepEqual(ours.objects.get(key), object, key);
    }
  });
});
