import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Informer, type InformerSource, type KubeList, type KubeObject } from "../../kube/index.js";
import { PolicyBarrier } from "./policy-barrier.js";

/** An informer whose store the test fills by hand (never started: no watch). */
function storeInformer(objects: KubeObject[]): Informer {
  const informer = new Informer({} as InformerSource, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    labelSelector: "app.kubernetes.io/managed-by=kro",
  });
  for (const o of objects) informer.store.upsert(o);
  (informer as unknown as { synced: boolean }).synced = true;
  return informer;
}
const vap = (name: string, uid: string, rv: string): KubeObject => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name, uid, resourceVersion: rv },
});

describe("PolicyBarrier", () => {
  it("waits until the informer shows what a list made after the ticket shows (a delete it has not handled yet)", async () => {
    const informer = storeInformer([vap("kro-author.a.0", "u1", "10"), vap("kro-author.b.0", "u2", "11")]);
    let lists = 0;
    const client = {
      list: (): Promise<KubeList> => {
        lists++;
        return Promise.resolve({
          apiVersion: "v1",
          kind: "List",
          metadata: { resourceVersion: "30" },
          items: [vap("kro-author.b.0", "u2", "11")],
        });
      },
    };
    const barrier = new PolicyBarrier(client);
    barrier.attach([informer]);
    const ticket = barrier.ticket();
    let done = false;
    const waiting = barrier.caughtUp(ticket).then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(done, false, "the informer still holds the deleted policy");
    informer.store.remove("kro-author.a.0");
    await waiting;
    assert.equal(lists, 1);
  });

  it("shares a round among the writes seen before it started; a write seen during a round waits for the next", async () => {
    const informer = storeInformer([vap("kro-author.a.0", "u1", "10")]);
    let lists = 0;
    let release: () => void = () => undefined;
    const client = {
      list: async (): Promise<KubeList> => {
        lists++;
        await new Promise<void>((r) => {
          release = r;
        });
        return {
          apiVersion: "v1",
          kind: "List",
          metadata: { resourceVersion: "30" },
          items: [vap("kro-author.a.0", "u1", "10")],
        };
      },
    };
    const barrier = new PolicyBarrier(client);
    barrier.attach([informer]);
    const t1 = barrier.ticket();
    const first = Promise.all([barrier.caughtUp(t1), barrier.caughtUp(t1), barrier.caughtUp(t1)]);
    await new Promise((r) => setTimeout(r, 10));
    const t2 = barrier.ticket();
    assert.ok(t2 > t1);
    const second = barrier.caughtUp(t2);
    release();
    await first;
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(lists, 2, "three waiters shared the first list; the later one started a second");
    release();
    await second;
    assert.equal(lists, 2);
  });

  it("a write not newer than a completed round's list needs no round of its own", async () => {
    const informer = storeInformer([vap("kro-author.a.0", "u1", "10")]);
    let lists = 0;
    const client = {
      list: (): Promise<KubeList> => {
        lists++;
        return Promise.resolve({
          apiVersion: "v1",
          kind: "List",
          metadata: { resourceVersion: "30" },
          items: [vap("kro-author.a.0", "u1", "10")],
        });
      },
    };
    const barrier = new PolicyBarrier(client);
    barrier.attach([informer]);
    await barrier.caughtUp(barrier.ticket(), "25");
    await barrier.caughtUp(barrier.ticket(), "30");
    assert.equal(lists, 1, "rv 30 was covered by the list at 30");
    await barrier.caughtUp(barrier.ticket(), "31");
    assert.equal(lists, 2);
    await barrier.caughtUp(barrier.ticket(), "opaque");
    assert.equal(lists, 3, "no shortcut without a decimal revision");
  });

  it("needs no list at all when nothing waits", () => {
    const barrier = new PolicyBarrier({
      list: () => {
        throw new Error("listed");
      },
    });
    barrier.attach([storeInformer([])]);
    assert.equal(barrier.rounds, 0);
  });
});
