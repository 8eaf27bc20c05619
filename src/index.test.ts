// The library entry: createKubeClient reads $KUBECONFIG from process.env unless env is passed.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { createKubeClient, KubeconfigError } from "./index.js";

describe("library entry", () => {
  it("defaults env to process.env, and an explicit env wins", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-entry-"));
    t.after(async () => { await rm(dir, { recursive: true, force: true }); });
    const file = path.join(dir, "config");
    await writeFile(file, JSON.stringify({
      "current-context": "c",
      clusters: [{ name: "c", cluster: { server: "https://entry.example:6443" } }],
      contexts: [{ name: "c", context: { cluster: "c", namespace: "apps" } }],
    }));
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = file;
    t.after(() => { if (saved === undefined) delete process.env.KUBECONFIG; else process.env.KUBECONFIG = saved; });
    const client = await createKubeClient();
    assert.equal(client.server, "https://entry.example:6443");
    assert.equal(client.defaultNamespace, "apps");
    client.close();
    await assert.rejects(createKubeClient({ env: { KUBECONFIG: path.join(dir, "absent") } }), KubeconfigError);
  });
});
