/**
 * Someone else's write racing ours: a child edited at the moment a spec change makes the
 * controller apply it — before, after, or while the apply is in flight — ends as the spec says,
 * and so does its dependent, from watch events alone (the safety-net requeue is ten minutes away).
 * And the watch events that only echo our own writes queue nothing (context/own-writes.ts): a
 * burst of new instances, then a spec change to each, converge in about one pass per instance.
 *
 * Written for the first attempt to drop those echoes: this test went red at once —
 * a dependency and its dependent were applied side by side from cached state, and only the echo's
 * pass put the dependent right. Apply rounds now write a dependent again when its dependency's
 * answer changes it (apply-rounds.ts), and an echo counts again once a later pass has begun.
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

const RACES = 10;
const BURST = 40;
const suffix = letterSuffix();
const kind = `Race${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `race-${suffix}`;
const namespace = `race-${suffix}`;
let tc: TestController;

interface Instance {
  status?: { value?: string };
}
interface ConfigMap {
  data?: Record<string, string>;
}

const rgdYaml = () => `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      value: string | default="v0"
    status:
      value: \${second.data.value}
  resources:
    - id: first
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-first" }
        data: { value: "\${schema.spec.value}" }
    - id: second
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-second" }
        data: { value: "\${first.data.value}" }
`;
const instanceYaml = (name: string, value: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: { value: "${value}" }\n`;

describe("someone else's write racing ours", { timeout: 240_000 }, () => {
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

  it(`a child edited while the controller writes it is put right from the edit's own event (${RACES} races)`, async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("race", "r0"));
    await eventually(
      async () => {
        assert.equal((await kubectlJson<Instance>(["get", plural, "race", "-n", namespace])).status?.value, "r0");
      },
      { timeout: 30_000, interval: 100 },
    );
    for (let round = 1; round <= RACES; round++) {
      const value = `r${round}`;
      // The spec change makes the controller apply `race-first`; the edit lands around that write,
      // before or after it, or while it is in flight.
      await Promise.all([
        kubectl(["apply", "-f", "-"], instanceYaml("race", value)),
        new Promise((resolve) => setTimeout(resolve, round * 7)).then(() =>
          kubectl([
            "patch",
            "configmap",
            "race-first",
            "-n",
            namespace,
            "--type=merge",
            "-p",
            `{"data":{"value":"edited-${round}"}}`,
          ]),
        ),
      ]);
      await eventually(
        async () => {
          const first = await kubectlJson<ConfigMap>(["get", "configmap", "race-first", "-n", namespace]);
          assert.equal(first.data?.value, value, `round ${round}: the edit stayed`);
          const second = await kubectlJson<ConfigMap>(["get", "configmap", "race-second", "-n", namespace]);
          assert.equal(second.data?.value, value, `round ${round}`);
        },
        { timeout: 20_000, interval: 100 },
      );
    }
  });

  it(`${BURST} new instances, then a spec change to each, converge with their dependents right in about one pass each`, async () => {
    const names = Array.from({ length: BURST }, (_, i) => `burst-${i}`);
    const passesSince = (start: number) =>
      tc.evaluated.slice(start).filter((e) => e.startsWith(`${namespace}/burst-`)).length;
    for (const [phase, value] of [
      ["created", "b1"],
      ["changed", "b2"],
    ] as const) {
      const start = tc.evaluated.length;
      await kubectl(["apply", "-f", "-"], names.map((name) => instanceYaml(name, value)).join("---\n"));
      await eventually(
        async () => {
          const list = await kubectlJson<{ items: (Instance & { metadata: { name: string } })[] }>([
            "get",
            plural,
            "-n",
            namespace,
          ]);
          const behind = list.items.filter((o) => o.metadata.name.startsWith("burst-") && o.status?.value !== value);
          assert.equal(behind.length, 0, `${phase}: ${behind.length} behind`);
        },
        { timeout: 60_000, interval: 200 },
      );
      for (const name of names.slice(0, 5)) {
        assert.equal(
          (await kubectlJson<ConfigMap>(["get", "configmap", `${name}-second`, "-n", namespace])).data?.value,
          value,
          `${phase}: ${name}'s dependent`,
        );
      }
      // Echo passes would come within a second or two of the writes they echo.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const passes = passesSince(start);
      // Two per instance when every echo queued one; a few echoes count again by design.
      assert.ok(passes <= BURST * 1.4, `${phase}: ${passes} passes for ${BURST} instances`);
    }
  });
});
