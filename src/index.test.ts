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
    t.after(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const file = path.join(dir, "config");
    await writeFile(
      file,
      JSON.stringify({
        "current-context": "c",
        clusters: [{ name: "c", cluster: { server: "https://entry.example:6443" } }],
        contexts: [{ name: "c", context: { cluster: "c", namespace: "apps" } }],
      }),
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = file;
    t.after(() => {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    });
    const client = await createKubeClient();
    assert.equal(client.server, "https://entry.example:6443");
    assert.equal(client.defaultNamespace, "apps");
    client.close();
    await assert.rejects(createKubeClient({ env: { KUBECONFIG: path.join(dir, "absent") } }), KubeconfigError);
  });
});

describe("library entry: the compiler", () => {
  it("compiles an RGD against the bundled schemas and draws it", async () => {
    const { compileRgd, graphPicture, schemaResolverFor } = await import("./index.js");
    const rgd = {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "lib" },
      spec: {
        schema: { apiVersion: "v1alpha1", kind: "Lib", spec: { name: "string | required=true" } },
        resources: [
          {
            id: "cm",
            template: {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: "${schema.spec.name}" },
              data: { replicas: "${schema.spec.name.size()}" },
            },
          },
        ],
      },
    };
    const result = compileRgd(rgd, { resolver: await schemaResolverFor("1.33") });
    // data values are strings: an int expression there is a type error found via the bundled ConfigMap schema
    assert.deepEqual(
      result.issues.map((i) => [i.code, i.path.join(".")]),
      [["expr.type-mismatch", "spec.resources.0.template.data.replicas"]],
    );
    rgd.spec.resources[0] = {
      id: "cm",
      template: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "${schema.spec.name}" },
        data: { replicas: "${string(schema.spec.name.size())}" },
      },
    };
    const fixed = compileRgd(rgd, { resolver: await schemaResolverFor("1.33") });
    assert.ok(fixed.graph);
    assert.match(graphPicture(fixed.graph, "text"), /^ {2}cm +ConfigMap v1 +wave 1 +<- instance$/m);
  });
});
