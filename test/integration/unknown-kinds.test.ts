/**
 * Unknown child kinds. kro resolves every child kind through discovery and
 * rejects one without a REST mapping (pkg/graph/builder.go buildRGResource). The controller has
 * discovery, so it does the same — and accepts the RGD once the CRD appears. Offline, `kro
 * validate` cannot see CRDs: it accepts, names the kinds in a warning, and `--strict` makes that
 * an error.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { schemaResolverFor } from "../../src/cli/inputs/inputs.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const OFFLINE = path.join(ROOT, "test/fixtures/kro-corpus/unknown-kind-offline.yaml");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

describe("kro validate: a child kind it cannot see", () => {
  it("accepts it with a warning naming the kind", async () => {
    const result = await kro(["validate", "-f", OFFLINE]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /warning: spec\.resources\[0\]\.template\.apiVersion: no schema is known for Widget \(example\.com\/v1\): its fields are not checked/,
    );
  });

  it("rejects it with --strict", async () => {
    const result = await kro(["validate", "--strict", "-f", OFFLINE]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /error: spec\.resources\[0\]\.template\.apiVersion: no schema is known for Widget \(example\.com\/v1\): the API server does not serve this kind/,
    );
  });
});

describe("the controller: a child kind the API server does not serve", { timeout: 180_000 }, () => {
  const suffix = letterSuffix();
  const group = `unknown-${suffix}.kro-test.example`;
  const rgdName = `unknown-kind-${suffix}`;
  let tc: TestController;
  type Cond = { type: string; status: string; reason?: string; message?: string };
  interface Rgd {
    status?: { state?: string; conditions?: Cond[] };
  }

  // Built-in schemas as `kro controller` runs with them; CRD kinds come from discovery.
  before(async () => {
    tc = await startTestController({ resolver: await schemaResolverFor() });
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `gadgets.${group}`, "--wait=false", "--ignore-not-found"]);
  });

  it("is ResourceGraphAccepted=False naming the kind, and Active once its CRD is installed", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: Unknown${suffix}App
    spec:
      name: string | default=demo
  resources:
    - id: gadget
      template:
        apiVersion: ${group}/v1
        kind: Gadget
        metadata: { name: "\${schema.metadata.name}" }
        spec: { size: 1 }
`,
    );
    const rejected = await eventually(
      async () => {
        const rgd = await kubectlJson<Rgd>(["get", "rgd", rgdName]);
        const accepted = rgd.status?.conditions?.find((c) => c.type === "ResourceGraphAccepted");
        assert.equal(accepted?.status, "False", JSON.stringify(rgd.status));
        return { rgd, accepted };
      },
      { timeout: 60_000 },
    );
    assert.equal(rejected.accepted.reason, "InvalidResourceGraph");
    assert.match(
      rejected.accepted.message ?? "",
      new RegExp(
        `no schema is known for Gadget \\(${group.replaceAll(".", "\\.")}/v1\\): the API server does not serve this kind`,
      ),
    );
    assert.equal(rejected.rgd.status?.state, "Inactive");

    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: `gadgets.${group}` },
        spec: {
          group,
          scope: "Namespaced",
          names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      }),
    );
    await waitRgdActive(rgdName);
  });
});
