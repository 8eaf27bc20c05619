/**
 * Ownership on the real API server: the controller never writes to or deletes an object it did not
 * create (hand-made objects, look-alikes with copied labels, another instance's objects, a tampered
 * record), adopts and releases only on the user's opt-in, loses no child to create/delete races,
 * and a held deletion costs a bounded number of requests. Each story counts, by listing, every
 * object carrying our labels and every object it made by hand: 0 orphans, 0 foreign objects
 * touched.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { recordItems, recordText, writeRecordItems } from "../support/instance-record.js";
import { expectAbsent, kubectl } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const kind = `Own${cap}App`;
const apiVersion = "kro.run/v1alpha1";
const namespace = `own-${suffix}`;
const other = `own-other-${suffix}`;
let tc: TestController;

interface Meta {
  name?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  finalizers?: string[];
}
type Obj = KubeObject & {
  metadata: Meta;
  data?: Record<string, string>;
  status?: { state?: string; conditions?: { type: string; status: string; message?: string }[] };
};

const cmRef = (name: string, ns = namespace) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, name });
const getCm = (name: string, ns = namespace) => tc.client.get<Obj>(cmRef(name, ns));
const getInstance = (name: string) => tc.client.get<Obj>({ apiVersion, kind, namespace, name });
const handMade = (name: string, labels: Record<string, string> = {}, ns = namespace): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, labels },
  data: { owner: "user", secret: "keep-me" },
});
const instance = (name: string, annotations: Record<string, string> = {}) => ({
  apiVersion,
  kind,
  metadata: { name, namespace, annotations },
  spec: { v: "x" },
});
const resourcesReady = (object: Obj) => object.status?.conditions?.find((c) => c.type === "ResourcesReady");

async function createInstance(name: string, annotations: Record<string, string> = {}): Promise<void> {
  await tc.client.create(instance(name, annotations));
}
async function deleteInstance(name: string): Promise<void> {
  await tc.client.delete({ apiVersion, kind, namespace, name });
  await eventually(() => expectAbsent([`${kind.toLowerCase()}s.kro.run`, name, "-n", namespace]), { timeout: 60_000 });
}
async function waitActive(name: string): Promise<Obj> {
  return eventually(
    async () => {
      const object = await getInstance(name);
      assert.equal(object.status?.state, "ACTIVE", JSON.stringify(object.status));
      return object;
    },
    { timeout: 60_000 },
  );
}
/** Every object in the cluster that names one of these instances as its owner (our labels). */
async function childrenOf(kindLabel: string): Promise<string[]> {
  const out: string[] = [];
  for (const ns of [namespace, other]) {
    const list = await tc.client.list("v1", "ConfigMap", {
      namespace: ns,
      labelSelector: `kro.run/instance-kind=${kindLabel}`,
    });
    out.push(...list.items.map((o) => `${ns}/${o.metadata?.name ?? ""}`));
  }
  return out;
}

describe("ownership", { timeout: 600_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["create", "namespace", other]);
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, `own-${suffix}`)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec: { v: string | default=x }
  resources:
    - id: first
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-first" }, data: { v: "\${schema.spec.v}" } }
    - id: second
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-second" }, data: { v: "\${first.data.v}" } }
`,
    );
    await waitRgdActive(`own-${suffix}`);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", `own-${suffix}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, other, "--wait=false", "--ignore-not-found"]);
  });

  it("never writes to a hand-made object with a child's name, says so, and leaves it when the instance goes", async () => {
    const mine = await tc.client.create(handMade("hand-first"));
    await createInstance("hand");
    await eventually(async () => {
      const message = resourcesReady(await getInstance("hand"))?.message ?? "";
      assert.match(
        message,
        /ConfigMap .*hand-first already exists and was not created by this instance.*kro\.run\/adopt=true/,
      );
    });
    const after = await getCm("hand-first");
    assert.equal(after.metadata.uid, mine.metadata.uid);
    assert.deepEqual(after.data, { owner: "user", secret: "keep-me" });
    assert.equal(after.metadata.resourceVersion, mine.metadata.resourceVersion, "not a single write");
    await deleteInstance("hand");
    assert.deepEqual((await getCm("hand-first")).data, { owner: "user", secret: "keep-me" });
  });

  it("never deletes look-alikes: copied owner labels, or another instance's labels without managed-by", async () => {
    await createInstance("real");
    await waitActive("real");
    const copied = (await getCm("real-first")).metadata.labels ?? {};
    await tc.client.create(handMade("copied-labels", copied));
    const someoneElses: Record<string, string> = {
      ...copied,
      "kro.run/instance-name": "someone",
      "kro.run/instance-id": "00000000-0000-0000-0000-000000000000",
    };
    delete someoneElses["app.kubernetes.io/managed-by"];
    await tc.client.create(handMade("other-second", someoneElses));
    await createInstance("other");
    await eventually(async () => {
      assert.match(
        resourcesReady(await getInstance("other"))?.message ?? "",
        /other-second belongs to another instance \(.*\/someone\)/,
      );
    });
    assert.deepEqual((await getCm("other-second")).data, { owner: "user", secret: "keep-me" });
    await deleteInstance("real");
    await deleteInstance("other");
    assert.deepEqual((await getCm("copied-labels")).data, { owner: "user", secret: "keep-me" });
    assert.deepEqual((await getCm("other-second")).data, { owner: "user", secret: "keep-me" });
    await expectAbsent(["configmap", "real-first", "-n", namespace]);
    await expectAbsent(["configmap", "other-first", "-n", namespace]);
  });

  it("adopts only with the opt-in; releases (keeps) adopted objects on deletion, or deletes them with adopt=delete", async () => {
    const kept = await tc.client.create(handMade("keep-first"));
    await createInstance("keep", { "kro.run/adopt": "true" });
    await waitActive("keep");
    const adopted = await getCm("keep-first");
    assert.equal(adopted.metadata.uid, kept.metadata.uid, "adopted in place, not recreated");
    assert.equal(adopted.data?.v, "x");
    assert.match(recordText(await getInstance("keep")), /"keep-first","[^"]+","first","a"/);
    await deleteInstance("keep");
    const released = await getCm("keep-first");
    assert.equal(released.metadata.uid, kept.metadata.uid, "released, not deleted");
    assert.equal(
      Object.keys(released.metadata.labels ?? {}).filter((k) => k.startsWith("kro.run/")).length,
      0,
      "our labels are gone",
    );
    assert.equal(released.data?.owner, "user");
    await expectAbsent(["configmap", "keep-second", "-n", namespace]);

    await tc.client.create(handMade("drop-first"));
    await createInstance("drop", { "kro.run/adopt": "delete" });
    await waitActive("drop");
    await deleteInstance("drop");
    await expectAbsent(["configmap", "drop-first", "-n", namespace]);
  });

  it("ignores a tampered record: entries naming objects elsewhere or of unknown nodes are never deleted", async () => {
    const victim = await tc.client.create(handMade("victim", {}, other));
    const victim2 = await tc.client.create(handMade("victim2"));
    await createInstance("tamper");
    const live = await waitActive("tamper");
    const items = recordItems(live);
    items.push(["v1", "ConfigMap", other, "victim", victim.metadata.uid ?? "", "first"]);
    items.push(["v1", "ConfigMap", namespace, "victim2", victim2.metadata.uid ?? "", "ghost"]);
    await writeRecordItems(tc.client, live, items);
    await deleteInstance("tamper");
    assert.equal((await getCm("victim", other)).metadata.uid, victim.metadata.uid);
    assert.equal((await getCm("victim2")).metadata.uid, victim2.metadata.uid);
    await expectAbsent(["configmap", "tamper-first", "-n", namespace]);
  });

  it("a held deletion wave costs a bounded number of requests and never a second DELETE", async () => {
    await createInstance("held");
    await waitActive("held");
    await tc.client.patch(cmRef("held-second"), { metadata: { finalizers: ["kro-ts.test/hold"] } });
    const mark = tc.requests.length;
    await tc.client.delete({ apiVersion, kind, namespace, name: "held" });
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const during = tc.requests
      .slice(mark)
      .filter((r) => r.path.includes("held-second") || (r.path.includes("held") && r.verb === "DELETE"));
    const deletes = during.filter((r) => r.verb === "DELETE" && r.path.includes("held-second"));
    assert.equal(
      deletes.length,
      1,
      `one DELETE of the held child, not one per pass: ${during.map((r) => `${r.verb} ${r.path}`).join(", ")}`,
    );
    assert.ok(during.length <= 4, `requests for the held child in 12 s: ${during.length}`);
    assert.ok((await getCm("held-first")).metadata.uid !== undefined, "the next wave waits");
    await tc.client.patch(cmRef("held-second"), { metadata: { finalizers: null } });
    await eventually(() => expectAbsent([`${kind.toLowerCase()}s.kro.run`, "held", "-n", namespace]), {
      timeout: 60_000,
    });
    await expectAbsent(["configmap", "held-first", "-n", namespace]);
  });

  it("loses no child when instances are deleted 0–700 ms after creation (100 races)", async () => {
    const names = Array.from({ length: 100 }, (_, i) => `race-${i}`);
    await Promise.all(
      names.map(async (name, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 20));
        await createInstance(name);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 700)));
        await tc.client.delete({ apiVersion, kind, namespace, name });
      }),
    );
    await eventually(
      async () => {
        const left = await tc.client.list(apiVersion, kind, { namespace });
        assert.deepEqual(
          left.items.map((o) => o.metadata?.name).filter((n) => n?.startsWith("race-")),
          [],
        );
      },
      { timeout: 180_000 },
    );
    // An instance whose DELETE raced the finalizer PATCH is gone before its children: the
    // controller removes them when it finds it gone (deleteChildrenOfGone), a moment later. What
    // must not happen is a child that stays.
    const left = (await childrenOf(kind)).filter((n) => n.includes("/race-"));
    console.log(`create/delete races: 100 instances, ${left.length} children left when the last instance went`);
    await eventually(
      async () => {
        assert.deepEqual(
          (await childrenOf(kind)).filter((n) => n.includes("/race-")),
          [],
          "orphans",
        );
      },
      { timeout: 30_000 },
    );
  });
});
