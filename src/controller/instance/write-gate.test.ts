// The write gate judges the concrete request: placement, the ownership guard and the requester's authority.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS, LABELS } from "../../api/index.js";
import { CREATE_ONLY_RESOURCE_VERSION } from "./apply-plan.js";
import type { GateRight } from "../context/index.js";
import {
  gateRulesOf,
  judgeApply,
  judgeAuthority,
  judgeAuthorship,
  judgeDelete,
  judgePatch,
  judgeReads,
  readKey,
  requesterOf,
  withRequester,
  WriteRefused,
  type AccessQuestion,
  type AskAccess,
  type GatePorts,
} from "./write-gate.js";

/** Ports with these answers, and discovery as a cluster serves core kinds. */
const ports = (ask: AskAccess): GatePorts => ({
  ask,
  resolve: (_apiVersion, kind) =>
    Promise.resolve({ group: "", resource: `${kind.toLowerCase()}s`, namespaced: kind !== "Namespace" }),
});

const rules = gateRulesOf({
  nodes: [
    { id: "local" },
    { id: "remote", clusters: ["eu-west", "us-east"] },
    { id: "x".repeat(80), clusters: ["eu-west"] },
  ] as never,
});
const body = (nodeId: string, metadata: Record<string, unknown> = { uid: "u1" }, cluster?: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "n",
    ...metadata,
    labels: { [LABELS.nodeId]: nodeId.length > 63 ? `${nodeId.slice(0, 52)}-shortened` : nodeId },
    ...(cluster === undefined ? {} : { annotations: { [ANNOTATIONS.cluster]: cluster } }),
  },
});

describe("write gate", () => {
  it("places a child where its resource allows: the controller's cluster, or a listed target", () => {
    assert.equal(judgeApply(rules, body("local")), undefined);
    assert.equal(judgeApply(rules, body("remote", { uid: "u1" }, "us-east")), "us-east");
    assert.throws(() => judgeApply(rules, body("remote", { uid: "u1" }, "ap-south")), /"ap-south" is not allowed/);
    assert.throws(() => judgeApply(rules, body("remote", { uid: "u1" }, "")), /empty target is an error/);
    assert.throws(() => judgeApply(rules, body("remote")), /evaluated to nothing/);
    assert.throws(() => judgeApply(rules, body("local", { uid: "u1" }, "eu-west")), /has no target cluster/);
    assert.throws(() => judgeApply(rules, body("stranger")), WriteRefused);
  });

  it("finds a long resource id by its shortened label", () => {
    const long = "x".repeat(80);
    const label = gateRulesOf({ nodes: [{ id: long, clusters: ["eu-west"] }] as never })
      .nodes.keys()
      .next().value;
    const write = {
      metadata: { uid: "u", labels: { [LABELS.nodeId]: label }, annotations: { [ANNOTATIONS.cluster]: "eu-west" } },
    };
    assert.equal(judgeApply(rules, write), "eu-west");
  });

  it("refuses an unguarded apply and an unconditioned patch", () => {
    assert.equal(judgeApply(rules, body("local", { resourceVersion: CREATE_ONLY_RESOURCE_VERSION })), undefined);
    assert.throws(() => judgeApply(rules, body("local", {})), /no ownership guard/);
    assert.throws(() => judgeApply(rules, body("local", { resourceVersion: "12" })), /no ownership guard/);
    assert.doesNotThrow(() => {
      judgePatch({ metadata: { resourceVersion: "7", labels: { a: null } } });
    });
    assert.throws(() => {
      judgePatch({ metadata: { labels: { a: null } } });
    }, /must carry the resourceVersion or UID/);
  });

  describe("authority of the recorded requester", () => {
    const right = (verb: string, adoption?: "any" | "delete"): GateRight => ({
      group: "",
      resource: "configmaps",
      verb,
      clusterScoped: false,
      adoption,
    });
    const rights = new Map([
      ["spec-chosen", [right("create"), right("patch"), right("delete"), right("update", "any")]],
    ]);
    const graph = { nodes: [{ id: "spec-chosen" }, { id: "own" }] } as never;
    const alice = requesterOf({
      [ANNOTATIONS.requestedBy]: "alice",
      [ANNOTATIONS.requestedGroups]: "devs,system:authenticated",
    });
    const child = (nodeId: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "team-b", uid: "u", labels: { [LABELS.nodeId]: nodeId } },
    });
    /** An authorizer that allows what `allowed` lists ("verb namespace name"), and records the questions. */
    const authorizer = (allowed: string[]) => {
      const asked: string[] = [];
      const ask = (who: { user: string; groups: readonly string[] }, q: AccessQuestion) => {
        const text = `${who.user}[${who.groups.join(",")}] ${q.verb} ${q.resource} ${q.namespace ?? "*"} ${q.name ?? "*"}`;
        asked.push(text);
        return Promise.resolve(allowed.includes(`${q.verb} ${q.namespace ?? "*"} ${q.name ?? "*"}`));
      };
      return { ask, asked };
    };

    it("asks create (without a name) and patch of the concrete object for the requester; never delete", async () => {
      const { ask, asked } = authorizer(["create team-b *", "patch team-b cfg"]);
      await judgeAuthority(gateRulesOf(graph, { rights, requester: alice }), child("spec-chosen"), ask);
      assert.deepEqual(asked, [
        "alice[devs,system:authenticated] create configmaps team-b *",
        "alice[devs,system:authenticated] patch configmaps team-b cfg",
      ]);
    });

    it("refuses, naming the child, verb, scope and user, when a right is missing", async () => {
      const { ask } = authorizer(["create team-b *"]);
      await assert.rejects(
        judgeAuthority(gateRulesOf(graph, { rights, requester: alice }), child("spec-chosen"), ask),
        (e: unknown) =>
          e instanceof WriteRefused &&
          /resource "spec-chosen": alice, who wrote the instance, may not patch configmaps "cfg" in namespace team-b/.test(
            e.message,
          ),
      );
    });

    it("asks update as well when the instance adopts; asks nothing for a node the RGD grants or without a record", async () => {
      const adopting = authorizer(["create team-b *", "patch team-b cfg"]);
      await assert.rejects(
        judgeAuthority(
          gateRulesOf(graph, { rights, requester: alice, adoption: "adopt-and-release" }),
          child("spec-chosen"),
          adopting.ask,
        ),
        /may not update configmaps "cfg"/,
      );
      const deleting = authorizer(["create team-b *", "patch team-b cfg", "update team-b cfg"]);
      await assert.rejects(
        judgeAuthority(
          gateRulesOf(graph, { rights, requester: alice, adoption: "adopt-and-delete" }),
          child("spec-chosen"),
          deleting.ask,
        ),
        /may not delete configmaps "cfg"/,
      );
      const none = authorizer([]);
      await judgeAuthority(gateRulesOf(graph, { rights, requester: alice }), child("own"), none.ask);
      await judgeAuthority(gateRulesOf(graph, { rights }), child("spec-chosen"), none.ask);
      assert.deepEqual(none.asked, []);
    });

    it("says why when the review cannot be asked", async () => {
      await assert.rejects(
        judgeAuthority(gateRulesOf(graph, { rights, requester: alice }), child("spec-chosen"), () =>
          Promise.resolve("connection refused"),
        ),
        /cannot check whether alice may create configmaps in namespace team-b: connection refused/,
      );
    });

    it("strips a requester record a template wrote, and gives a nested instance the outer one", () => {
      const nestedGraph = {
        nodes: [
          { id: "inner", type: "resource", apiVersion: "kro.run/v1alpha1", kind: "App" },
          { id: "plain", type: "resource", apiVersion: "v1", kind: "ConfigMap" },
        ],
      } as never;
      const rules = gateRulesOf(nestedGraph, { requester: alice, nested: (_v, kind) => kind === "App" });
      const forged = (nodeId: string) => ({
        metadata: {
          uid: "u",
          labels: { [LABELS.nodeId]: nodeId },
          annotations: { [ANNOTATIONS.requestedBy]: "system:admin", keep: "me" },
        },
      });
      assert.deepEqual((withRequester(rules, forged("plain")).metadata as { annotations: unknown }).annotations, {
        keep: "me",
      });
      assert.deepEqual((withRequester(rules, forged("inner")).metadata as { annotations: unknown }).annotations, {
        keep: "me",
        [ANNOTATIONS.requestedBy]: "alice",
        [ANNOTATIONS.requestedGroups]: "devs,system:authenticated",
      });
      const untouched = { metadata: { uid: "u", labels: { [LABELS.nodeId]: "plain" } } };
      assert.equal(withRequester(rules, untouched), untouched);
    });
  });

  describe("the read gate", () => {
    const secrets = (verb: string): GateRight => ({
      group: "",
      resource: "secrets",
      verb,
      clusterScoped: false,
      adoption: undefined,
    });
    const graph = { nodes: [{ id: "secret" }, { id: "all" }, { id: "fixed" }] } as never;
    const rights = new Map([
      ["secret", [secrets("get")]],
      ["all", [secrets("list")]],
    ]);
    const gina = { user: "gina", groups: [] };
    const identity = { apiVersion: "v1", kind: "Secret", namespace: "team-b", name: "token" };
    const query = { apiVersion: "v1", kind: "Secret", namespace: "team-b", matchLabels: {} };
    const externals = [
      { nodeId: "secret", request: identity },
      { nodeId: "all", request: query },
      { nodeId: "fixed", request: { ...identity, name: "other" } },
    ];

    it("asks get of the named object and list of the collection, for the requester; refused reads are named and keyed", async () => {
      const asked: string[] = [];
      const refusals = await judgeReads(
        gateRulesOf(graph, { rights, requester: gina }),
        externals,
        ports((_who, q) => {
          asked.push(`${q.verb} ${q.namespace ?? "*"} ${q.name ?? "*"}`);
          return Promise.resolve(q.verb === "list");
        }),
      );
      assert.deepEqual(asked, ["get team-b token", "list team-b *"]);
      assert.deepEqual(
        refusals.map((r) => [r.nodeId, r.key]),
        [["secret", readKey(identity)]],
      );
      assert.match(
        refusals[0]?.message ?? "",
        /reading for "secret": gina, who wrote the instance, may not get secrets "token" in namespace team-b/,
      );
      assert.notEqual(readKey(identity), readKey(query));
    });

    it("asks nothing without a requester record", async () => {
      assert.deepEqual(
        await judgeReads(
          gateRulesOf(graph, { rights }),
          externals,
          ports(() => Promise.resolve(false)),
        ),
        [],
      );
    });

    it("bounds every read in this cluster by the RGD author's rights, asked once per kind and namespace", async () => {
      const asked: string[] = [];
      const rita = { user: "rita", groups: ["platform"] };
      const refusals = await judgeReads(
        gateRulesOf(graph, { author: rita }),
        [...externals, { nodeId: "remote", request: { ...identity, cluster: "eu-west" } }],
        ports((who, q) => {
          asked.push(`${who.user} ${q.verb} ${q.resource} ${q.namespace ?? "*"}`);
          return Promise.resolve(q.verb === "list");
        }),
      );
      assert.deepEqual(
        asked,
        ["rita get secrets team-b", "rita list secrets team-b"],
        "the remote read is not asked here",
      );
      assert.deepEqual(
        refusals.map((r) => r.nodeId),
        ["secret", "fixed"],
      );
      assert.match(
        refusals[0]?.message ?? "",
        /reading for "secret": rita, who wrote the RGD, may not get secrets in namespace team-b; an RGD grants only what its author may do/,
      );
    });
  });

  describe("the RGD author's bound", () => {
    const rita = { user: "rita", groups: ["platform"] };
    const graph = { nodes: [{ id: "cm" }, { id: "far", clusters: ["eu-west"] }, { id: "ns" }] } as never;
    const child = (nodeId: string, metadata: Record<string, unknown>, kind = "ConfigMap") => ({
      apiVersion: "v1",
      kind,
      metadata: { name: "n", ...metadata, labels: { [LABELS.nodeId]: nodeId } },
    });
    const record = (answer: boolean | string) => {
      const asked: string[] = [];
      const p = ports((who, q) => {
        asked.push(
          `${who.user}/${who.groups.join(",")} ${q.verb} ${q.group}/${q.resource} ${q.namespace ?? "*"} ${q.name ?? "*"}`,
        );
        return Promise.resolve(answer);
      });
      return { asked, ports: p };
    };

    it("asks create for a new object and patch for one that exists, for the kind in the object's namespace, never its name", async () => {
      const { asked, ports: p } = record(true);
      const rules = gateRulesOf(graph, { author: rita });
      await judgeAuthorship(
        rules,
        child("cm", { namespace: "team-b", resourceVersion: CREATE_ONLY_RESOURCE_VERSION }),
        undefined,
        p,
      );
      await judgeAuthorship(rules, child("cm", { namespace: "team-b", uid: "u1" }), undefined, p);
      await judgeAuthorship(rules, child("ns", { uid: "u2" }, "Namespace"), undefined, p);
      assert.deepEqual(asked, [
        "rita/platform create /configmaps team-b *",
        "rita/platform patch /configmaps team-b *",
        "rita/platform patch /namespaces * *",
      ]);
    });

    it("refuses what the author may not do, naming the child, the verb, the scope and the author; sends nothing", async () => {
      const { ports: p } = record(false);
      await assert.rejects(
        judgeAuthorship(
          gateRulesOf(graph, { author: rita }),
          child("cm", { namespace: "kube-system", uid: "u1" }),
          undefined,
          p,
        ),
        (e: unknown) =>
          e instanceof WriteRefused &&
          /resource "cm": rita, who wrote the RGD, may not patch configmaps in namespace kube-system/.test(e.message),
      );
      const failing = record("connection refused");
      await assert.rejects(
        judgeAuthorship(
          gateRulesOf(graph, { author: rita }),
          child("cm", { namespace: "a", uid: "u1" }),
          undefined,
          failing.ports,
        ),
        /cannot check whether rita, who wrote the RGD, may patch configmaps in namespace a: connection refused/,
      );
    });

    it("asks nothing for an RGD without a recorded author, nor for a child in another cluster", async () => {
      const { asked, ports: p } = record(false);
      await judgeAuthorship(gateRulesOf(graph), child("cm", { namespace: "a", uid: "u1" }), undefined, p);
      await judgeAuthorship(
        gateRulesOf(graph, { author: rita }),
        child("far", { namespace: "a", uid: "u1" }),
        "eu-west",
        p,
      );
      assert.deepEqual(asked, []);
    });

    it("a kind discovery cannot name is refused, not guessed", async () => {
      const p = {
        ask: () => Promise.resolve(true),
        resolve: () => Promise.resolve("no kind Widget in example.com/v1"),
      };
      await assert.rejects(
        judgeAuthorship(gateRulesOf(graph, { author: rita }), child("cm", { namespace: "a", uid: "u1" }), undefined, p),
        /cannot check whether rita, who wrote the RGD, may patch ConfigMap: no kind Widget/,
      );
    });
  });

  it("retention: deletes only the live object decided on, never one marked keep, never an adopted one unless adopted for deletion", () => {
    const live = (annotations: Record<string, string> = {}) => ({ metadata: { uid: "u1", annotations } });
    const created = { uid: "u1", ownership: "created" as const, nodeId: "cm" };
    const adopted = { ...created, ownership: "adopted" as const };
    assert.doesNotThrow(() => {
      judgeDelete(created, live(), "never");
    });
    assert.throws(() => {
      judgeDelete(created, undefined, "never");
    }, /must be decided on the live object/);
    assert.throws(() => {
      judgeDelete(created, { metadata: { uid: "u2" } }, "never");
    }, /must be decided on the live object/);
    assert.throws(() => {
      judgeDelete(created, live({ "helm.sh/resource-policy": " keep " }), "adopt-and-delete");
    }, /resource-policy: keep; it is released, never deleted/);
    assert.throws(() => {
      judgeDelete(adopted, live(), "adopt-and-release");
    }, /was adopted, not adopted for deletion/);
    assert.doesNotThrow(() => {
      judgeDelete(adopted, live(), "adopt-and-delete");
    });
  });
});
