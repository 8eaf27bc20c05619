/**
 * A CRD the API server rejects is reported on the RGD as KindReady=False with the API server's own
 * message (kro: ConditionsMarker.KindUnready, reason Failed) — never as a missing status — and the
 * RGD recovers once fixed. And the status projections that used to produce rejected CRDs (a
 * child's conditions copied with their `default`s) now give CRDs the API server accepts.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { schemaResolverFor } from "../../src/cli/inputs/inputs.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

type Cond = { type: string; status: string; reason?: string; message?: string };
interface Rgd {
  status?: { state?: string; conditions?: Cond[] };
}

const suffix = letterSuffix();
const kind = `Rej${suffix}App`;
const rgdName = `rejected-${suffix}`;
const projName = `projection-${suffix}`;
let tc: TestController;

function rgdYaml(nameMarker: string): string {
  return `${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      name: string | ${nameMarker}
  resources:
    - id: box
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-box" }
`;
}

const condition = (rgd: Rgd, type: string) => (rgd.status?.conditions ?? []).find((c) => c.type === type);

describe("a CRD the API server rejects", { timeout: 180_000 }, () => {
  // The built-in schemas, as `kro controller` runs with them: child fields are typed.
  before(async () => {
    tc = await startTestController({ resolver: await schemaResolverFor() });
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, projName, "--wait=false", "--ignore-not-found"]);
  });

  it("is KindReady=False (reason Failed) with the API server's message, the RGD Inactive, the graph accepted", async () => {
    // A validation rule the offline compiler does not judge but the API server's CEL compiler rejects.
    await kubectl(["apply", "-f", "-"], rgdYaml('validation="self.nope > 1"'));
    const rgd = await eventually(
      async () => {
        const current = await kubectlJson<Rgd>(["get", "rgd", rgdName]);
        assert.equal(condition(current, "KindReady")?.status, "False", JSON.stringify(current.status));
        return current;
      },
      { timeout: 60_000 },
    );
    const kindReady = condition(rgd, "KindReady");
    assert.equal(kindReady?.reason, "Failed");
    assert.match(kindReady.message ?? "", /CustomResourceDefinition.*is invalid.*x-kubernetes-validations/s);
    assert.equal(rgd.status?.state, "Inactive");
    assert.equal(condition(rgd, "ResourceGraphAccepted")?.status, "True");
  });

  it("recovers once the RGD is fixed", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml('validation="size(self) > 0"'));
    await waitRgdActive(rgdName);
  });

  it("a status projecting a child's conditions and optional fields gives a CRD the API server accepts", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, projName)}
  schema:
    apiVersion: v1alpha1
    kind: Proj${suffix}App
    spec:
      name: string | default=web
    status:
      deployConditions: \${deploy.status.conditions}
      available: \${deploy.status.?availableReplicas}
      containers: \${deploy.spec.template.spec}
      names: ["\${deploy.metadata.name}", "\${deploy.metadata.namespace}"]
  resources:
    - id: deploy
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${schema.metadata.name}" }
        spec:
          selector: { matchLabels: { app: web } }
          template:
            metadata: { labels: { app: web } }
            spec:
              containers: [{ name: web, image: nginx }]
`,
    );
    await waitRgdActive(projName);
    const crd = await kubectlJson<{
      spec: {
        versions: {
          schema: { openAPIV3Schema: { properties: { status: { properties: Record<string, { type?: string }> } } } };
        }[];
      };
    }>(["get", "crd", `proj${suffix}apps.kro.run`]);
    const status = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.status.properties ?? {};
    assert.equal(status.names?.type, "array", JSON.stringify(Object.keys(status)));
    assert.equal(status.deployConditions?.type, "array", JSON.stringify(status));
  });
});
