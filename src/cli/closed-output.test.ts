import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const CLI = path.join(fileURLToPath(new URL(".", import.meta.url)), "main.js");
/** What a process killed by SIGPIPE reports: 128 + 13. */
const CLOSED_OUTPUT_EXIT_CODE = 141;

/** 1,000 ConfigMaps of ~1 KB: output that takes many pipe reads. */
const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: big }
spec:
  schema:
    apiVersion: v1alpha1
    kind: Big
    spec:
      pad: string | default=""
  resources:
    - id: maps
      forEach:
        - i: "\${lists.range(1000)}"
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name + '-' + string(i)}" }
        data: { pad: "\${schema.spec.pad}" }
`;
const INSTANCE = `apiVersion: kro.run/v1alpha1
kind: Big
metadata: { name: b, namespace: default }
spec: { pad: "${"x".repeat(1000)}" }
`;

describe("kro's output cut short (`kro … | head`)", () => {
  it("stops quietly with SIGPIPE's status instead of crashing with a stack trace", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-closed-output-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, "rgd.yaml"), RGD);
    await writeFile(path.join(dir, "instance.yaml"), INSTANCE);
    const child = spawn(process.execPath, [CLI, "render", "-f", "rgd.yaml", "-i", "instance.yaml"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader leaves after the first chunk, as \`head\` does.
    child.stdout.once("data", () => {
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(stderr, "", "nothing on stderr");
    assert.equal(code, CLOSED_OUTPUT_EXIT_CODE);
  });
});
