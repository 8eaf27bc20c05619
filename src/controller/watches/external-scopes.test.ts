import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InformerManager, InformerOptions } from "../../kube/index.js";
import { ExternalScopes, labelSelectorText, scopeOf } from "./external-scopes.js";

function harness(forbidden = new Set<string>()) {
  const running = new Map<string, { options: InformerOptions; released: boolean; handlers: number }>();
  let next = 0;
  const informers = {
    acquire: (options: InformerOptions) => {
      const id = `${options.kind}#${next++}`;
      const state = { options, released: false, handlers: 0 };
      running.set(id, state);
      return {
        informer: {
          hasSynced: true,
          options,
          addHandlers: () => {
            state.handlers++;
            return () => {
              state.handlers--;
            };
          },
        },
        release: () => {
          state.released = true;
          return Promise.resolve();
        },
      };
    },
  } as unknown as InformerManager;
  const probes: InformerOptions[] = [];
  const probe = (o: InformerOptions) => {
    probes.push(o);
    return Promise.resolve(forbidden.has(o.namespace ?? "") ? "forbidden" : undefined);
  };
  const enqueued: string[] = [];
  const scopes = new ExternalScopes(informers, probe, (key) => {
    enqueued.push(key);
  });
  const live = () => [...running.values()].filter((s) => !s.released).map((s) => s.options);
  return { scopes, running, probes, live, enqueued };
}

const secret = (name: string, namespace = "team-a") => ({
  nodeId: "creds",
  request: { apiVersion: "v1", kind: "Secret", namespace, name },
});

describe("scopeOf", () => {
  it("one object by name: a metadata.name field selector in its namespace", () => {
    assert.deepEqual(scopeOf({ apiVersion: "v1", kind: "Secret", namespace: "team-a", name: "db" }), {
      apiVersion: "v1",
      kind: "Secret",
      namespace: "team-a",
      fieldSelector: "metadata.name=db",
    });
  });

  it("a cluster-scoped object: no namespace, still by name", () => {
    assert.deepEqual(scopeOf({ apiVersion: "v1", kind: "Namespace", name: "prod" }), {
      apiVersion: "v1",
      kind: "Namespace",
      fieldSelector: "metadata.name=prod",
    });
  });

  it("a collection: its label selector in its namespace; the same selector written in another order is the same scope", () => {
    const a = scopeOf({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "n",
      matchLabels: { b: "2", a: "1" },
      matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }],
    });
    assert.deepEqual(a, {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "n",
      labelSelector: "a=1,b=2,tier in (api,web)",
    });
    const b = scopeOf({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "n",
      matchLabels: { a: "1", b: "2" },
      matchExpressions: [{ key: "tier", operator: "In", values: ["api", "web"] }],
    });
    assert.deepEqual(a, b);
  });

  it("every selector operator", () => {
    assert.equal(
      labelSelectorText({
        matchLabels: {},
        matchExpressions: [
          { key: "a", operator: "NotIn", values: ["x"] },
          { key: "b", operator: "Exists" },
          { key: "c", operator: "DoesNotExist" },
        ],
      }),
      "a notin (x),b,!c",
    );
  });
});

describe("ExternalScopes", () => {
  it("instances reading the same Secret share one scoped informer, released after the last one lets go", async () => {
    const { scopes, live } = harness();
    assert.equal((await scopes.hold("i1", [secret("db")])).started, true);
    assert.equal((await scopes.hold("i2", [secret("db")])).started, false, "shared");
    assert.deepEqual(live(), [
      { apiVersion: "v1", kind: "Secret", namespace: "team-a", fieldSelector: "metadata.name=db" },
    ]);
    scopes.forget("i1");
    assert.equal(live().length, 1, "i2 still reads it");
    scopes.forget("i2");
    assert.equal(live().length, 0);
    assert.equal(scopes.size, 0);
  });

  it("an instance that now reads another Secret releases the old scope", async () => {
    const { scopes, live } = harness();
    await scopes.hold("i1", [secret("db")]);
    await scopes.hold("i1", [secret("db-v2")]);
    assert.deepEqual(
      live().map((o) => o.fieldSelector),
      ["metadata.name=db-v2"],
    );
    await scopes.hold("i1", []);
    assert.equal(live().length, 0);
  });

  it("a scope the controller may not list is an error for its node, and nothing is started", async () => {
    const { scopes, live } = harness(new Set(["locked"]));
    const outcome = await scopes.hold("i1", [secret("db", "locked")]);
    assert.match(
      outcome.errors.get("creds") ?? "",
      /^cannot watch Secret \(v1\) in namespace locked \[metadata\.name=db\] for resource "creds": forbidden/,
    );
    assert.equal(live().length, 0);
  });

  it("events on a scope wake exactly its holders; handlers go with the scope", async () => {
    const { scopes, running } = harness();
    await scopes.hold("i1", [secret("db")]);
    await scopes.hold("i2", [secret("other")]);
    const db = [...running.values()][0];
    assert.ok(db !== undefined);
    assert.equal(db.handlers, 1);
    scopes.forget("i1");
    assert.equal(db.handlers, 0, "handlers removed: a shared informer keeps no stale router");
    assert.equal(scopes.informerFor(secret("db").request), undefined);
    assert.notEqual(scopes.informerFor(secret("other").request), undefined);
  });
});
