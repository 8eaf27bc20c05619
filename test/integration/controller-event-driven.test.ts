/**
 * Progress is event-driven, not timer-driven: with the safety-net requeue pushed out to ten
 * minutes — far beyond any wait here — a chain of ten ConfigMaps (each reading the previous one's
 * data) converges at all only through events, and the controller sends about one apply per
 * ConfigMap — not one per level per pass.
 * A spec change then ripples down the whole chain the same way.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import {
  waitRgdActive,
  rgdHeader,
  letterSuffix,
  startTestController,
  type TestController,
} from "../support/controller.js";

interface Obj {
  metadata: { name: string };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const LENGTH = 10;
const suffix = letterSuffix();
const kind = `Relay${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`; // a fixed ending keeps the plural predictable
const plural = `${kind.toLowerCase()}s`;
const rgdName = `relay-${suffix}`;
const namespace = `evt-${suffix}`;
let tc: TestController;

function rgdYaml(): string {
  const resources = Array.from({ length: LENGTH }, (_, i) => {
    const value = i === 0 ? "${schema.spec.seed}" : `\${link${i - 1}.data.value + '.${i}'}`;
    return `    - id: link${i}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-link${i}" }
        data: { value: "${value}" }`;
  }).join("\n");
  return `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      seed: string | default="s"
    status:
      last: \${link${LENGTH - 1}.data.value}
  resources:
${resources}
`;
}

const expectedLast = (seed: string) => [seed, ...Array.from({ length: LENGTH - 1 }, (_, i) => String(i + 1))].join(".");
const instanceYaml = (seed: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: chain, namespace: ${namespace} }\nspec: { seed: "${seed}" }\n`;
const getInstance = () => kubectlJson<Obj>(["get", plural, "chain", "-n", namespace]);
const configMapApplies = (since: number) =>
  tc.writes(since).filter((r) => r.verb === "PATCH" && r.path.includes(`/namespaces/${namespace}/configmaps/`));

describe("event-driven convergence (no periodic requeue)", { timeout: 300_000 }, () => {
  before(async () => {
    tc = await startTestController({ requeueIntervalMs: 600_000 });
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("converges a ten-level chain without a requeue, with about one apply per ConfigMap", async () => {
    const mark = tc.requests.length;
    const started = Date.now();
    await kubectl(["apply", "-f", "-"], instanceYaml("s"));
    const instance = await eventually(
      async () => {
        const o = await getInstance();
        assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
        return o;
      },
      { timeout: 60_000, interval: 100 },
    );
    const elapsedMs = Date.now() - started;
    assert.equal(instance.status?.last, expectedLast("s"));
    const last = await kubectlJson<Obj>(["get", "configmap", `chain-link${LENGTH - 1}`, "-n", namespace]);
    assert.equal(last.data?.value, expectedLast("s"));
    const applies = configMapApplies(mark).length;
    assert.ok(
      applies >= LENGTH && applies <= 2 * LENGTH,
      `expected ${LENGTH}..${2 * LENGTH} ConfigMap applies, got ${applies}`,
    );
    // A requeue-driven controller would need one ten-minute interval per level; this one needs
    // none. The time is shown, not asserted: the bench measures speed.
    console.log(
      `chain of ${LENGTH}: ACTIVE after ${elapsedMs} ms, ${applies} ConfigMap applies, ${tc.writes(mark).length} writes in all`,
    );
  });

  it("ripples a spec change down the whole chain, again with one apply per ConfigMap", async () => {
    const mark = tc.requests.length;
    await kubectl(["apply", "-f", "-"], instanceYaml("t"));
    await eventually(
      async () => {
        assert.equal((await getInstance()).status?.last, expectedLast("t"));
      },
      { timeout: 60_000, interval: 100 },
    );
    const applies = configMapApplies(mark).length;
    assert.ok(
      applies >= LENGTH && applies <= 2 * LENGTH,
      `expected ${LENGTH}..${2 * LENGTH} ConfigMap applies, got ${applies}`,
    );
  });

  it("restores a deleted link in the middle of the chain from its watch event alone", async () => {
    const before = await kubectlJson<{ metadata: { uid: string } }>([
      "get",
      "configmap",
      "chain-link4",
      "-n",
      namespace,
    ]);
    await kubectl(["delete", "configmap", "chain-link4", "-n", namespace]);
    await eventually(
      async () => {
        const cm = await kubectlJson<{ metadata: { uid: string }; data?: Record<string, string> }>([
          "get",
          "configmap",
          "chain-link4",
          "-n",
          namespace,
        ]);
        assert.notEqual(cm.metadata.uid, before.metadata.uid);
        assert.equal(cm.data?.value, "t.1.2.3.4");
      },
      { timeout: 60_000, interval: 100 },
    );
  });
});
