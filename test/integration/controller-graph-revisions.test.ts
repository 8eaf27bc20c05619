/**
 * GraphRevisions on the real API server: every served graph is recorded as an immutable,
 * numbered revision owned by its RGD; after a restart, an RGD whose spec is now invalid is served
 * from its newest revision, so its instance still converges and can be deleted; retention keeps
 * the newest five; deleting the RGD removes its revisions, unless orphaned for a successor to adopt.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { expectAbsent, kubectl, kubectlJson } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

interface Meta {
  name: string;
  uid: string;
  labels?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
}
interface Obj {
  metadata: Meta;
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}
interface Revision {
  metadata: Meta;
  spec: { revision: number; snapshot: { name: string; generation: number; spec: Record<string, unknown> } };
  status?: { conditions?: Cond[]; topologicalOrder?: string[] };
}
type Cond = { type: string; status: string; reason?: string; message?: string };

const suffix = letterSuffix();
const kind = `Rev${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `rev-${suffix}`;
const namespace = `rev-${suffix}`;
const RESTARTS = 3;
/** The selector every controller of this file watches (each restart is a new controller with it). */
let selector: { key: string; value: string };
let tc: TestController;

/** `flavour` lands in the child, so each valid edit is a new spec; `broken` adds a resource that cannot compile. */
function rgdYaml(flavour: string, broken?: string): string {
  return `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${selector.key}: "${selector.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      greeting: string | default="hello"
  resources:
    - id: first
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-first" }
        data: { value: "\${schema.spec.greeting}", flavour: "${flavour}" }
    - id: second
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-second" }
        data: { value: "\${first.data.value + '-second'}" }
${
  broken === undefined
    ? ""
    : `    - id: broken
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${${broken}.x}" } }
`
}`;
}

const instanceYaml = (greeting: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: demo, namespace: ${namespace} }\nspec: { greeting: ${greeting} }\n`;
const getCm = (name: string) => kubectlJson<Obj>(["get", "configmap", name, "-n", namespace]);
const getRgd = () => kubectlJson<Obj>(["get", "rgd", rgdName]);
const conditions = (o: Obj) => new Map(((o.status?.conditions ?? []) as Cond[]).map((c) => [c.type, c]));
async function revisions(): Promise<Revision[]> {
  const list = await kubectlJson<{ items: Revision[] }>([
    "get",
    "graphrevisions",
    "-l",
    `kro.run/resource-graph-definition-name=${rgdName}`,
  ]);
  return list.items.sort((a, b) => a.spec.revision - b.spec.revision);
}
const numbers = async () => (await revisions()).map((r) => r.spec.revision);

/**
 * Kubernetes' garbage collector learns new resource types by periodic discovery: until it watches
 * GraphRevisions it can neither orphan nor collect them. Prove it does with a canary revision
 * owned by a throwaway ClusterRole: once the role is deleted, the canary must be collected.
 */
async function waitGarbageCollectorWatchesRevisions(): Promise<void> {
  const name = `gc-canary-${suffix}`;
  const owner = JSON.parse(
    await kubectl(["create", "clusterrole", name, "--verb=get", "--resource=configmaps", "-o", "json"]),
  ) as Obj;
  const canary = {
    apiVersion: "internal.kro.run/v1alpha1",
    kind: "GraphRevision",
    metadata: {
      name,
      ownerReferences: [
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name, uid: owner.metadata.uid },
      ],
    },
    spec: {
      revision: 1,
      snapshot: { name, generation: 1, spec: { schema: { apiVersion: "v1alpha1", kind: "Canary" } } },
    },
  };
  await kubectl(["create", "-f", "-"], JSON.stringify(canary));
  await kubectl(["delete", "clusterrole", name]);
  await eventually(() => expectAbsent(["graphrevision", name]), { timeout: 120_000, interval: 1000 });
}

async function waitLastIssued(expected: number): Promise<void> {
  await eventually(async () => {
    const rgd = await getRgd();
    assert.equal(rgd.status?.lastIssuedRevision, expected, JSON.stringify(rgd.status));
    assert.equal(rgd.status.state, "Active", JSON.stringify(rgd.status));
  });
}

describe("GraphRevisions", () => {
  before(async () => {
    tc = await startTestController();
    selector = tc.label;
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("records the served graph as revision 1, owned by the RGD, visible with kubectl get graphrevisions", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml("a"));
    await waitLastIssued(1);
    const rgd = await getRgd();
    const [revision, ...more] = await revisions();
    assert.equal(more.length, 0);
    assert.ok(revision !== undefined);
    assert.equal(revision.metadata.name, `${rgdName}-r00001`);
    assert.deepEqual(revision.spec.snapshot, { name: rgdName, generation: 1, spec: rgd.spec });
    assert.deepEqual(revision.metadata.ownerReferences, [
      {
        apiVersion: "kro.run/v1alpha1",
        kind: "ResourceGraphDefinition",
        name: rgdName,
        uid: rgd.metadata.uid,
        controller: true,
      },
    ]);
    assert.equal(revision.metadata.labels?.["kro.run/owned"], "true");
    assert.match(revision.metadata.labels["kro.run/graph-revision-hash"] ?? "", /^[0-9a-f]{16}$/);
    await eventually(async () => {
      const [verified] = await revisions();
      assert.deepEqual(verified?.status?.topologicalOrder, ["first", "second"]);
      assert.equal(verified.status.conditions?.find((c) => c.type === "Ready")?.status, "True");
    });
    const table = await kubectl(["get", "graphrevisions", `${rgdName}-r00001`]);
    assert.match(table, /REVISION\s+READY/);
    assert.match(table, new RegExp(`${rgdName}-r00001\\s+1\\s+True`));
    await assert.rejects(
      kubectl(["patch", "graphrevision", `${rgdName}-r00001`, "--type=merge", "-p", '{"spec":{"revision":7}}']),
      /immutable/,
    );
  });

  it("issues a new revision for a new spec only; re-applying the same spec issues none", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("hi"));
    await eventually(async () => {
      assert.equal((await getCm("demo-second")).data?.value, "hi-second");
    });
    await kubectl(["apply", "-f", "-"], rgdYaml("b"));
    await waitLastIssued(2);
    await eventually(async () => {
      assert.equal((await getCm("demo-first")).data?.flavour, "b");
    });
    const mark = tc.requests.length;
    await kubectl(["annotate", "rgd", rgdName, "kro.run/allow-breaking-changes=false"]); // a reconcile, same spec
    await eventually(() => {
      assert.ok(tc.requests.slice(mark).some((r) => r.verb === "GET" && r.path.includes("graphrevisions")));
    });
    assert.deepEqual(await numbers(), [1, 2]);
    assert.ok(
      !tc.writes(mark).some((r) => r.path.includes("graphrevisions")),
      "no revision written for an unchanged spec",
    );
  });

  for (let round = 1; round <= RESTARTS; round += 1) {
    it(`restart ${round}/${RESTARTS} with an invalid RGD: the instance is served from revision 2 and still converges`, async () => {
      await tc.stop();
      // While no controller runs: the RGD becomes invalid (a new invalid spec each round) and the instance changes.
      await kubectl(["apply", "-f", "-"], rgdYaml("b", `nope${round}`));
      await kubectl(["apply", "-f", "-"], instanceYaml(`round${round}`));
      tc = await startTestController({ rgdSelector: `${selector.key}=${selector.value}` });
      await eventually(async () => {
        assert.equal((await getCm("demo-second")).data?.value, `round${round}-second`);
      });
      const rgd = await getRgd();
      const byType = conditions(rgd);
      assert.equal(byType.get("ResourceGraphAccepted")?.status, "False");
      assert.match(byType.get("ResourceGraphAccepted")?.message ?? "", new RegExp(`nope${round}`));
      assert.match(
        byType.get("KindReady")?.message ?? "",
        /served by the last valid graph \(GraphRevision 2, generation 2\) because the current spec \(generation \d+\) is invalid/,
      );
      assert.equal(rgd.status?.lastIssuedRevision, 2);
      assert.deepEqual(await numbers(), [1, 2], "an invalid spec issues no revision");
    });
  }

  it("deletes the instance after a restart with the RGD still invalid: children gone, finalizer removed", async () => {
    await kubectl(["delete", plural, "demo", "-n", namespace, "--wait=false"]);
    await eventually(() => expectAbsent([plural, "demo", "-n", namespace]));
    await expectAbsent(["configmap", "demo-first", "-n", namespace]);
    await expectAbsent(["configmap", "demo-second", "-n", namespace]);
  });

  it("keeps the newest five revisions once the RGD is valid again", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("again"));
    for (const [index, flavour] of ["c", "d", "e", "f", "g"].entries()) {
      await kubectl(["apply", "-f", "-"], rgdYaml(flavour));
      await waitLastIssued(3 + index);
    }
    await eventually(async () => {
      assert.deepEqual(await numbers(), [3, 4, 5, 6, 7]);
    });
    await eventually(async () => {
      assert.equal((await getCm("demo-first")).data?.flavour, "g");
    });
  });

  it("deleting the RGD (invalid, after a restart) waits for its instance, then removes its revisions", async () => {
    await tc.stop();
    await kubectl(["apply", "-f", "-"], rgdYaml("g", "gone"));
    await kubectl(["delete", "rgd", rgdName, "--wait=false"]);
    tc = await startTestController({ rgdSelector: `${selector.key}=${selector.value}` });
    await eventually(async () => {
      const ready = conditions(await getRgd()).get("Ready");
      assert.equal(ready?.reason, "InstancesExist");
    });
    await kubectl(["apply", "-f", "-"], instanceYaml("last"));
    await eventually(async () => {
      assert.equal((await getCm("demo-second")).data?.value, "last-second");
    });
    await kubectl(["delete", plural, "demo", "-n", namespace, "--wait=false"]);
    await eventually(() => expectAbsent(["rgd", rgdName]));
    await expectAbsent(["configmap", "demo-first", "-n", namespace]);
    assert.deepEqual(await numbers(), []);
  });

  it("an RGD that never compiled issues no revision and says that nothing is served", async () => {
    const name = `${rgdName}-never`;
    const yaml = rgdYaml("x", "nope")
      .replace(`name: ${rgdName}`, `name: ${name}`)
      .replace(`kind: ${kind}`, `kind: ${kind}Never`);
    await kubectl(["apply", "-f", "-"], yaml);
    await eventually(async () => {
      const controllerReady = conditions(await kubectlJson<Obj>(["get", "rgd", name])).get("ControllerReady");
      assert.equal(controllerReady?.reason, "NoValidGraph");
      assert.match(controllerReady.message ?? "", /no GraphRevision of this RGD compiles/);
    });
    assert.equal(
      (
        await kubectl(["get", "graphrevisions", "-l", `kro.run/resource-graph-definition-name=${name}`, "-o", "name"])
      ).trim(),
      "",
    );
    await kubectl(["delete", "rgd", name, "--wait=false"]);
    await eventually(() => expectAbsent(["rgd", name]));
  });

  it("kubectl delete --cascade=orphan keeps the revisions; an RGD recreated under the name adopts them and numbers on", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml("h"));
    await waitLastIssued(1); // nothing was left to collide with: numbering starts again, as in kro
    await waitGarbageCollectorWatchesRevisions();
    await kubectl(["delete", "rgd", rgdName, "--cascade=orphan", "--wait=false"]);
    await eventually(() => expectAbsent(["rgd", rgdName]));
    await eventually(async () => {
      const left = await revisions();
      assert.deepEqual(
        left.map((r) => r.spec.revision),
        [1],
        "the revision was kept",
      );
      assert.deepEqual(left[0]?.metadata.ownerReferences ?? [], [], "the garbage collector orphaned it");
    });
    await kubectl(["apply", "-f", "-"], rgdYaml("i"));
    await waitLastIssued(2);
    const uid = (await getRgd()).metadata.uid;
    const adopted = await revisions();
    assert.deepEqual(
      adopted.map((r) => [r.spec.revision, r.metadata.ownerReferences?.map((o) => o.uid)]),
      [
        [1, [uid]],
        [2, [uid]],
      ],
    );
  });
});
