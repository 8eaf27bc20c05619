/**
 * Informers live as long as a served graph needs them. An RGD whose child is a kind of its own
 * (a CRD only this test uses) is served, then deleted: the controller's watch of that kind ends
 * (its own informer list and the API server's count of open WATCH requests on the resource both
 * drop), and after the kind's CRD is deleted too nothing asks for it again. Re-created, it works
 * again. The race: the RGD and all its instances deleted at once while their reconciles run.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, expectAbsent } from "../support/test-cluster.js";
import {
  rgdHeader,
  letterSuffix,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const suffix = letterSuffix();
const group = `lifetimes-${suffix}.test`;
const childPlural = `gadget${suffix}s`;
const childKind = `Gadget${suffix}`;
const kind = `Lifetime${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `lifetimes-${suffix}`;
const namespace = `lifetimes-${suffix}`;
let tc: TestController;

const childCrd = () =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${childPlural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: childPlural, singular: childPlural.slice(0, -1), kind: childKind },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  });

const rgdYaml = () => `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      size: integer | default=1
  resources:
    - id: gadget
      template:
        apiVersion: ${group}/v1
        kind: ${childKind}
        metadata: { name: "\${schema.metadata.name}-gadget" }
        spec: { size: "\${schema.spec.size}" }
    - id: note
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-note" }
        data: { gadget: "\${gadget.metadata.name}" }
`;

const instance = (name: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: {}\n`;

/** The controller's informers on the child kind (its own view). */
const childInformers = () => tc.controller.watching().filter((o) => o.kind === childKind);

/** Open WATCH requests on the child resource, as the API server counts them (only this test uses the kind). */
async function serverWatches(): Promise<number> {
  const text = await kubectl(["get", "--raw", "/metrics"]);
  let total = 0;
  for (const line of text.split("\n")) {
    if (
      line.startsWith("apiserver_longrunning_requests{") &&
      line.includes(`resource="${childPlural}"`) &&
      line.includes('verb="WATCH"')
    )
      total += Number(line.split(" ").at(-1));
  }
  return total;
}

const childRequests = (since = 0) => tc.requests.slice(since).filter((r) => r.path.includes(`/${childPlural}`));

async function instanceReady(name: string): Promise<void> {
  await eventually(
    async () => {
      const o = await kubectlJson<{ status?: { state?: string } }>(["get", plural, name, "-n", namespace]);
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
    },
    { timeout: 30_000 },
  );
}

async function deleteRgdAndWait(): Promise<void> {
  await kubectl(["delete", "rgd", rgdName, "--wait=false"]);
  await eventually(() => expectAbsent(["rgd", rgdName]), { timeout: 60_000 });
}

describe("informer lifetimes", { timeout: 300_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], childCrd());
    await kubectl(["wait", "--for=condition=Established", `crd/${childPlural}.${group}`, "--timeout=30s"]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `${childPlural}.${group}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("deleting the RGD ends its child-kind watch; nothing asks for the kind afterwards; re-created it works", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await waitRgdActive(rgdName);
    await kubectl(["apply", "-f", "-"], instance("one"));
    await instanceReady("one");
    assert.equal(childInformers().length, 1, "one informer for the child kind while served");
    await eventually(async () => {
      assert.ok((await serverWatches()) >= 1, "the API server sees our watch");
    });

    await kubectl(["delete", plural, "one", "-n", namespace, "--wait=false"]);
    await deleteRgdAndWait();
    await eventually(() => {
      assert.deepEqual(childInformers(), []);
    });
    // The kind's CRD goes too: an informer still running would now fail and retry forever.
    // (The server's count is checked only now: kube-controller-manager's garbage collector
    // watches every served resource, this one included, until its CRD is gone.)
    await kubectl(["delete", "crd", `${childPlural}.${group}`]);
    const mark = tc.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.deepEqual(
      childRequests(mark).map((r) => `${r.verb} ${r.path} ${r.status}`),
      [],
      "nothing retried the deleted kind",
    );
    await eventually(
      async () => {
        assert.equal(await serverWatches(), 0, "no watch on the kind is open any more");
      },
      { timeout: 15_000 },
    );

    // Re-created (CRD, then RGD): served and watched again.
    await kubectl(["apply", "-f", "-"], childCrd());
    await kubectl(["wait", "--for=condition=Established", `crd/${childPlural}.${group}`, "--timeout=30s"]);
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await waitRgdActive(rgdName);
    await kubectl(["apply", "-f", "-"], instance("two"));
    await instanceReady("two");
    assert.equal(childInformers().length, 1);
    await eventually(async () => {
      assert.ok((await serverWatches()) >= 1);
    });
    // A child deleted behind its back is restored: events flow through the new informer.
    await kubectl(["delete", childPlural, "two-gadget", "-n", namespace]);
    await eventually(() => kubectlJson(["get", childPlural, "two-gadget", "-n", namespace]), { timeout: 15_000 });
    await kubectl(["delete", plural, "two", "-n", namespace, "--wait=false"]);
    await deleteRgdAndWait();
    await eventually(() => {
      assert.deepEqual(childInformers(), []);
    });
  });

  it("race, 3 times: the RGD and its instances deleted at once while their reconciles run — all gone, no watch left", async () => {
    for (let round = 0; round < 3; round++) {
      await kubectl(["apply", "-f", "-"], rgdYaml());
      await waitRgdActive(rgdName);
      const names = Array.from({ length: 8 }, (_, i) => `race-${round}-${i}`);
      await kubectl(["apply", "-f", "-"], names.map(instance).join("---\n"));
      // No wait for Ready: deletions land while the first reconciles are creating children.
      await new Promise((resolve) => setTimeout(resolve, 150 * round));
      await Promise.all([
        kubectl(["delete", plural, ...names, "-n", namespace, "--wait=false"]),
        kubectl(["delete", "rgd", rgdName, "--wait=false"]),
      ]);
      await eventually(
        async () => {
          const left = await kubectlJson<{ items: unknown[] }>(["get", plural, "-n", namespace]);
          assert.equal(left.items.length, 0, `round ${round}: instances left`);
        },
        { timeout: 60_000 },
      );
      await eventually(() => expectAbsent(["rgd", rgdName]), { timeout: 60_000 });
      const gadgets = await kubectlJson<{ items: unknown[] }>(["get", childPlural, "-n", namespace]);
      assert.equal(gadgets.items.length, 0, `round ${round}: every child created was deleted`);
      await eventually(() => {
        assert.deepEqual(childInformers(), [], `round ${round}: informer released`);
      });
      assert.equal(tc.controller.health().ok, true, JSON.stringify(tc.controller.health()));
    }
    const mark = tc.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.deepEqual(
      childRequests(mark).map((r) => `${r.verb} ${r.path} ${r.status}`),
      [],
      "no request for the kind once nothing serves it",
    );
  });
});
