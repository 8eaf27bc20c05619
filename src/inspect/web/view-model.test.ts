import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../kube/index.js";
import type { InstanceTree } from "../tree-model.js";
import { renderInstancePage } from "./instance-html.js";
import { childRows, instancePageOf, pictureColors, type InstancePageSnapshot } from "./instance-model.js";
import { instanceStatusOf } from "./instance-state.js";
import { renderOverview } from "./overview-html.js";
import { renderRgdPage } from "./rgd-html.js";
import { rgdPageOf } from "./rgd-model.js";
import {
  filterOf,
  overviewOf,
  PAGE_SIZE,
  queryOf,
  type ListFilter,
  type OverviewSnapshot,
  type RgdListing,
} from "./overview-model.js";
import { eventViews, MAX_EVENTS, withoutRepeats } from "./view-model.js";

const NOW = Date.parse("2026-12-01T12:00:00Z");

const leaf: InstanceTree = {
  apiVersion: "kro.run/v1alpha1",
  kind: "Leaf",
  name: "shop",
  namespace: "team-a",
  rgd: "leaf",
  ready: true,
  reason: "AllResourcesReady",
  message: "",
  nodes: [
    {
      id: "cm",
      apiVersion: "v1",
      kind: "ConfigMap",
      type: "resource",
      state: "Ready",
      reason: "applied",
      objects: [{ apiVersion: "v1", kind: "ConfigMap", name: "shop-leaf" }],
    },
  ],
};

const root: InstanceTree = {
  apiVersion: "kro.run/v1alpha1",
  kind: "Root",
  name: "shop",
  namespace: "team-a",
  rgd: "root",
  ready: false,
  state: "ERROR",
  reason: "ResourcesNotReady",
  message: "portal failed",
  nodes: [
    {
      id: "deploy",
      apiVersion: "apps/v1",
      kind: "Deployment",
      type: "resource",
      state: "WaitingForReadiness",
      reason: "readyWhen is not true yet",
      blockedBy: { expression: "deploy.status.ready" },
      objects: [{ apiVersion: "apps/v1", kind: "Deployment", name: "shop" }],
    },
    {
      id: "svc",
      apiVersion: "v1",
      kind: "Service",
      type: "resource",
      state: "WaitingOnDependency",
      reason: "waiting on deploy",
      blockedBy: { dependencies: ["deploy"], expression: "x" },
      objects: [],
    },
    {
      id: "ing",
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      type: "resource",
      state: "Excluded",
      reason: "includeWhen is false",
      blockedBy: { expression: "schema.spec.port == 1" },
      objects: [],
    },
    {
      id: "leaf",
      apiVersion: "kro.run/v1alpha1",
      kind: "Leaf",
      type: "resource",
      state: "Ready",
      reason: "applied",
      objects: [{ apiVersion: "kro.run/v1alpha1", kind: "Leaf", name: "shop", instance: leaf }],
    },
    {
      id: "portal",
      apiVersion: "v1",
      kind: "Service",
      type: "resource",
      state: "Error",
      reason: "apply Service: 422 Invalid",
      objects: [],
    },
    {
      id: "old",
      apiVersion: "v1",
      kind: "Secret",
      type: "collection",
      state: "Deleting",
      reason: "deleting",
      objects: [
        { apiVersion: "v1", kind: "Secret", name: "a" },
        { apiVersion: "v1", kind: "Secret", name: "b" },
      ],
    },
  ],
};

const APPLY_ERROR = 'apply Service: Service "shop-portal" is invalid: spec.ports[0].port: must be between 1 and 65535';

function instance(
  namespace: string,
  name: string,
  status: { state?: string; ready?: string; message?: string; resources?: string } = {},
  meta: Record<string, unknown> = {},
): KubeObject {
  const conditions = [
    ...(status.ready === undefined
      ? []
      : [{ type: "Ready", status: status.ready, reason: "R", message: status.message ?? "", observedGeneration: 1 }]),
    ...(status.resources === undefined
      ? []
      : [{ type: "ResourcesReady", status: "False", reason: "ResourcesNotReady", message: status.resources }]),
  ];
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "Root",
    metadata: { name, namespace, generation: 1, creationTimestamp: "2026-12-01T11:59:30Z", ...meta },
    status: { ...(status.state === undefined ? {} : { state: status.state }), conditions },
  };
}

const rgdObject = (name: string): KubeObject => ({
  metadata: { name, generation: 3, creationTimestamp: "2026-12-01T11:00:00Z" },
  status: { state: "Active", conditions: [{ type: "Ready", status: "True", reason: "Ready", message: "" }] },
});

function listing(name: string, instances: RgdListing["instances"]): RgdListing {
  return {
    rgd: rgdObject(name),
    kind: { apiVersion: "kro.run/v1alpha1", kind: "Root" },
    scope: "all namespaces",
    instances,
  };
}

/** 1,000 instances over two namespaces: every 10th in error, every 25th in progress, the rest Ready. */
function thousand(): KubeObject[] {
  return Array.from({ length: 1000 }, (_, i) => {
    const name = `app-${String(i).padStart(4, "0")}`;
    const namespace = i % 2 === 0 ? "team-a" : "team-b";
    if (i % 10 === 0) return instance(namespace, name, { state: "ERROR", ready: "False", message: "quota exceeded" });
    if (i % 25 === 1)
      return instance(namespace, name, { state: "IN_PROGRESS", ready: "False", message: "waiting for db" });
    return instance(namespace, name, { state: "ACTIVE", ready: "True" });
  });
}

const overviewSnapshot = (): OverviewSnapshot => ({
  server: "https://127.0.0.1:6443",
  rgds: {
    ok: true,
    value: [
      listing("web", { ok: true, value: thousand() }),
      listing("db", { ok: false, notPermitted: true, message: 'roots is forbidden: User "bob" cannot list' }),
    ],
  },
});

const filter = (f: Partial<ListFilter> = {}): ListFilter => ({ page: 1, ...f });

describe("web view: an instance's state from its own object", () => {
  it("tells ready, in progress, waiting, error and deleting apart without reading a child", () => {
    assert.deepEqual(instanceStatusOf(instance("a", "x", { state: "ACTIVE", ready: "True" })), {
      state: "ready",
      reason: "",
    });
    assert.deepEqual(
      instanceStatusOf(instance("a", "x", { state: "IN_PROGRESS", ready: "False", message: "db\n  not ready" })),
      {
        state: "in-progress",
        reason: "db not ready",
      },
    );
    assert.equal(instanceStatusOf(instance("a", "x")).state, "waiting", "no status from the controller yet");
    assert.equal(
      instanceStatusOf(instance("a", "x", { state: "ACTIVE", ready: "True" }, { generation: 2 })).state,
      "waiting",
      "Ready was written for an older generation",
    );
    assert.deepEqual(
      instanceStatusOf(
        instance("a", "x", {
          state: "IN_PROGRESS",
          ready: "False",
          message: "m",
          resources: `at least one resource reports an error: portal: ${APPLY_ERROR}`,
        }),
      ),
      { state: "error", reason: `at least one resource reports an error: portal: ${APPLY_ERROR}` },
      "an apply error in ResourcesReady is an error",
    );
    assert.equal(instanceStatusOf(instance("a", "x", { state: "ERROR", ready: "False" })).state, "error");
    assert.equal(
      instanceStatusOf(
        instance("a", "x", { state: "ACTIVE", ready: "True" }, { deletionTimestamp: "2026-12-01T12:00:00Z" }),
      ).state,
      "deleting",
    );
  });
});

describe("web view: a rollout's progress", () => {
  const rolling = (): OverviewSnapshot => {
    const base = listing("web", { ok: true, value: thousand() });
    const rgd = {
      ...base.rgd,
      spec: { ...(base.rgd.spec as object), rollout: { maxUpdating: 10 } },
      status: {
        rollout: {
          target: 5,
          wave: { index: 1, name: "half", of: 3 },
          updated: 420,
          total: 1000,
          pinProblems: [{ namespace: "team-a", name: "app-0007", reason: "pinned revision 1 is gone" }],
        },
        conditions: [{ type: "Propagated", status: "False", reason: "Progressing", message: "wave 2/3" }],
      },
    };
    return { server: "https://127.0.0.1:6443", rgds: { ok: true, value: [{ ...base, rgd }] } };
  };
  it("the overview's RGD row says how far it is; the RGD page shows the bar and what kro rollout status prints", () => {
    const overview = renderOverview(overviewOf(rolling(), filter(), "./", NOW));
    assert.match(overview, /data-rollout="420\/1000">· rolling out 420\/1,000</);
    const page = renderRgdPage(
      rgdPageOf({ rgdName: "web", overview: rolling(), events: { ok: true, value: [] } }, filter(), "./", NOW),
      "./",
    );
    assert.match(page, /<progress value="420" max="1000"><\/progress>/);
    assert.match(page, /web: revision 5, wave 2\/3 &quot;half&quot;, 420\/1000 instances healthy there/);
    assert.match(page, /pin not honoured: team-a\/app-0007: pinned revision 1 is gone/);
  });
  it("an RGD without spec.rollout shows none of it", () => {
    const overview = renderOverview(overviewOf(overviewSnapshot(), filter(), "./", NOW));
    assert.doesNotMatch(overview, /rolling out/);
    const page = renderRgdPage(
      rgdPageOf({ rgdName: "web", overview: overviewSnapshot(), events: { ok: true, value: [] } }, filter(), "./", NOW),
      "./",
    );
    assert.doesNotMatch(page, /<h3>Rollout<\/h3>/);
  });
});

describe("web view: the overview at 1,000 instances", () => {
  it("counts each RGD's instances by state, and says a refused list once in its row", () => {
    const view = overviewOf(overviewSnapshot(), filter(), "./", NOW);
    assert.ok(view.rgds.ok);
    const [db, web] = view.rgds.value;
    assert.equal(web?.name, "web");
    assert.equal(web.total, 1000);
    assert.deepEqual(web.counts, { ready: 860, "in-progress": 40, waiting: 0, error: 100, deleting: 0 });
    assert.equal(db?.refused?.message, 'roots is forbidden: User "bob" cannot list');
    const html = renderOverview(view);
    assert.equal(html.split("roots is forbidden").length - 1, 1, "the refusal is said once");
    assert.match(html, /<a href="\.\/\?rgd=web&amp;state=error" data-count="error">100<\/a>/);
  });

  it("pages 50 at a time, problems first, and says where the page is", () => {
    const first = overviewOf(overviewSnapshot(), filter(), "./", NOW).list;
    assert.equal(first.rows.length, PAGE_SIZE);
    assert.equal(first.rows[0]?.state, "error");
    assert.equal(first.pages, 20);
    const second = overviewOf(overviewSnapshot(), filter({ page: 2 }), "./", NOW);
    assert.deepEqual([second.list.first, second.list.last, second.list.matched], [51, 100, 1000]);
    assert.equal(second.list.rows[0]?.key, "team-a/app-0500", "after the 50 first errors");
    const html = renderOverview(second);
    assert.match(html, /showing 51–100 of 1,000/);
    assert.match(html, /<a rel="prev" href="\.\/">‹ previous<\/a> <a rel="next" href="\.\/\?page=3">next ›<\/a>/);
    assert.match(html, /href="\.\/instances\/web\/team-a\/app-0500"/, "each row links to its instance's page");
    const errors = renderOverview(overviewOf(overviewSnapshot(), filter(), "./", NOW));
    assert.equal(errors.split("quota exceeded").length - 1, 1, "50 rows with one reason say it once");
    assert.equal(errors.split("↑").length - 1, PAGE_SIZE - 1, "and a ditto mark below it");
    const past = overviewOf(overviewSnapshot(), filter({ page: 99 }), "./", NOW).list;
    assert.deepEqual([past.page, past.first, past.last], [20, 951, 1000], "a page past the end shows the last");
  });

  it("filters by state, namespace, RGD and text, and keeps the filter in the pager's links", () => {
    const by = (f: Partial<ListFilter>) => overviewOf(overviewSnapshot(), filter(f), "./", NOW).list;
    assert.equal(by({ state: "error" }).matched, 100);
    assert.equal(by({ state: "in-progress", namespace: "team-b" }).matched, 20);
    assert.equal(by({ namespace: "team-a" }).matched, 500);
    assert.equal(by({ rgd: "db" }).matched, 0);
    assert.equal(by({ q: "APP-099" }).matched, 10, "text is matched without case");
    assert.equal(by({ q: "quota" }).matched, 100, "text matches the reason too");
    const html = renderOverview(overviewOf(overviewSnapshot(), filter({ state: "error", q: "app" }), "./", NOW));
    assert.match(html, /showing 1–50 of 100<\/span> <span class="muted">\(1,000 listed\)<\/span>/);
    assert.match(html, /href="\.\/\?state=error&amp;q=app&amp;page=2">next/);
  });

  it("reads the filter from the address, dropping what is malformed", () => {
    assert.deepEqual(filterOf(new URLSearchParams("namespace=team-a&state=error&q=%20x%20&page=3")), {
      page: 3,
      namespace: "team-a",
      q: "x",
      state: "error",
    });
    assert.deepEqual(filterOf(new URLSearchParams("state=bogus&page=-1&rgd=")), { page: 1 });
    assert.equal(queryOf(filter({ rgd: "web", page: 1 })), "?rgd=web");
  });
});

const shopObject = instance("team-a", "shop", {
  state: "IN_PROGRESS",
  ready: "False",
  message: `at least one resource reports an error: portal: ${APPLY_ERROR}`,
  resources: `at least one resource reports an error: portal: ${APPLY_ERROR}`,
});

function withPortalError(tree: InstanceTree): InstanceTree {
  return {
    ...tree,
    nodes: tree.nodes.map((n) => (n.id === "portal" ? { ...n, reason: APPLY_ERROR } : n)),
  };
}

function instanceSnapshot(overrides: Partial<InstancePageSnapshot> = {}): InstancePageSnapshot {
  return {
    server: "https://127.0.0.1:6443",
    rgd: rgdObject("root"),
    rgdName: "root",
    namespace: "team-a",
    name: "shop",
    object: { ok: true, value: shopObject },
    tree: { ok: true, value: withPortalError(root) },
    events: {
      ok: true,
      value: [1, 2, 3].map((i) => ({
        metadata: { name: `e${String(i)}` },
        type: "Warning",
        reason: "ApplyFailed",
        message: APPLY_ERROR,
        count: 2,
        lastTimestamp: "2026-12-01T11:59:50Z",
        involvedObject: { kind: "Root", namespace: "team-a", name: "shop" },
      })),
    },
    ...overrides,
  };
}

describe("web view: an instance's page", () => {
  it("lists its children as the tree does: nested instances indented, a collection's reason once, the cluster of each", () => {
    const remote = {
      ...root,
      nodes: root.nodes.map((n) =>
        n.id === "deploy" ? { ...n, objects: n.objects.map((o) => ({ ...o, cluster: "eu-1" })) } : n,
      ),
    };
    const rows = childRows(remote, NOW);
    assert.deepEqual(
      rows.map((r) => [r.depth, r.node, r.kind, r.name, r.cluster, r.state, r.reason]),
      [
        [
          0,
          "deploy",
          "Deployment",
          "shop",
          "eu-1",
          "waiting-readiness",
          "readyWhen is not true yet: deploy.status.ready",
        ],
        [0, "svc", "Service", "", "", "waiting-dependency", "waiting on deploy"],
        [0, "ing", "Ingress", "", "", "excluded", "includeWhen is false: schema.spec.port == 1"],
        [0, "leaf", "Leaf", "shop", "", "ready", "applied"],
        [1, "cm", "ConfigMap", "shop-leaf", "", "ready", "applied"],
        [0, "portal", "Service", "", "", "error", "apply Service: 422 Invalid"],
        [0, "old", "Secret", "a", "", "deleting", "deleting"],
        [0, "old", "Secret", "b", "", "deleting", ""],
      ],
    );
    const html = renderInstancePage(
      instancePageOf(instanceSnapshot({ tree: { ok: true, value: remote } }), "../../../", NOW),
      "../../../",
    );
    assert.match(html, /<td class="cluster">eu-1<\/td>/);
    assert.match(html, /<td class="cluster">hub<\/td>/, "an object without a cluster is in the hub");
  });

  it("paints the picture with its nodes' states", () => {
    assert.deepEqual(pictureColors(root), {
      instance: "error",
      deploy: "waiting",
      svc: "pending",
      ing: "excluded",
      leaf: "ready",
      portal: "error",
      old: "pending",
    });
    const view = instancePageOf(instanceSnapshot(), "../../../", NOW);
    assert.equal(
      view.graphUrl,
      "../../../graph.svg?rgd=root&generation=3&colors=deploy%3Awaiting%2Cing%3Aexcluded%2Cinstance%3Aerror%2Cleaf%3Aready%2Cold%3Apending%2Cportal%3Aerror%2Csvc%3Apending",
    );
  });

  it("says an error once, not in every condition and Event that repeats it", () => {
    const html = renderInstancePage(instancePageOf(instanceSnapshot(), "../../../", NOW), "../../../");
    // The children table (the portal row) and the Events (one row, counted) are the two places it belongs.
    assert.equal(html.split("must be between 1 and 65535").length - 1, 2, html);
    assert.match(html, /<td>Ready<\/td><td>False<\/td><td>R<\/td><td class="message">\(see portal in children\)<\/td>/);
    assert.match(html, /<td class="message">\(as Ready\)<\/td>/);
    assert.match(html, /ApplyFailed <span class="muted">×6<\/span>/, "three Events counted twice each: one row");
    assert.doesNotMatch(
      html,
      /<th>object<\/th>|Root\/team-a\/shop/,
      "every Event is about this instance: no column says so",
    );
  });

  it("shows one refusal and nothing else when the instance itself may not be read", () => {
    const no = { ok: false, notPermitted: true, message: 'roots.kro.run "shop" is forbidden' } as const;
    const html = renderInstancePage(
      instancePageOf(instanceSnapshot({ object: no, tree: no, events: no }), "../../../", NOW),
      "../../../",
    );
    assert.equal(html.split("is forbidden").length - 1, 1);
    assert.match(html, /not permitted:<\/strong> root instance team-a\/shop/);
    assert.doesNotMatch(html, /<table/);
  });

  it("escapes every text from the cluster", () => {
    const evil = "<img src=x onerror=alert(1)>\"'&";
    const html = renderInstancePage(
      instancePageOf(
        instanceSnapshot({
          server: evil,
          name: evil,
          events: {
            ok: true,
            value: [{ type: "Warning", reason: evil, message: evil, involvedObject: { kind: evil } }],
          },
        }),
        "../../../",
        NOW,
      ),
      "../../../",
    );
    assert.doesNotMatch(html, /<img src=x/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;&quot;&#39;&amp;/);
  });
});

describe("web view: conditions and Events", () => {
  it("points a repeated condition message at the row that says it", () => {
    const list = withoutRepeats([
      { type: "ResourcesReady", status: "False", reason: "R", message: "db is down" },
      { type: "Ready", status: "False", reason: "R", message: "db is down" },
      { type: "GraphResolved", status: "True", reason: "Resolved", message: "" },
    ]);
    assert.deepEqual(
      list.map((c) => c.message),
      ["db is down", "(as ResourcesReady)", ""],
    );
  });

  it("keeps the newest events first and at most MAX_EVENTS rows", () => {
    const events = Array.from({ length: MAX_EVENTS + 5 }, (_, i) => ({
      metadata: { name: `e${String(i)}` },
      type: i === 7 ? "Warning" : "Normal",
      reason: `R${String(i)}`,
      message: "m",
      lastTimestamp: new Date(NOW - (MAX_EVENTS + 5 - i) * 1000).toISOString(),
      involvedObject: { kind: "Root", namespace: "team-a", name: "shop" },
    }));
    const views = eventViews(events, NOW);
    assert.equal(views.length, MAX_EVENTS);
    assert.equal(views[0]?.reason, `R${String(MAX_EVENTS + 4)}`);
    assert.equal(views[0].object, "Root/team-a/shop");
  });
});
