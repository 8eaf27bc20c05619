import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { graphDot, graphMermaid, graphPicture, graphText, type PictureGraph } from "./graph-picture.js";

type PictureNode = PictureGraph["nodes"][number];

function node(id: string, extra: Partial<PictureNode> = {}): PictureNode {
  return {
    id,
    kind: "ConfigMap",
    apiVersion: "v1",
    type: "resource",
    dependencies: [],
    includeWhen: [],
    forEach: [],
    wave: 1,
    ...extra,
  };
}

/** One node of every kind: plain, conditional, collection, external, external collection. */
const graph: PictureGraph = {
  name: "shop",
  instance: { group: "kro.run", version: "v1alpha1", kind: "Shop" },
  nodes: [
    node("db", { kind: "Secret", type: "external" }),
    node("app", { kind: "Deployment", apiVersion: "apps/v1", dependencies: ["db"], wave: 2 }),
    node("ing", {
      kind: "Ingress",
      apiVersion: "networking.k8s.io/v1",
      dependencies: ["app"],
      includeWhen: ["schema.spec.ingress"],
      wave: 3,
    }),
    node("perRegion", { forEach: [{ name: "r", expression: "schema.spec.regions" }], type: "collection" }),
    node("peers", { kind: "Service", type: "externalCollection" }),
  ],
  topologicalOrder: ["db", "app", "ing", "perRegion", "peers"],
};

describe("graphText", () => {
  const text = graphText(graph);
  it("heads with the instance and lists nodes in topological order with kind, wave and dependencies", () => {
    const lines = text.trimEnd().split("\n");
    assert.equal(lines[0], "graph shop: instance Shop (kro.run/v1alpha1)");
    assert.deepEqual(
      lines.slice(1, 6).map((l) => l.trim().split(/\s+/)[0]),
      ["db", "app", "ing", "perRegion", "peers"],
    );
    assert.match(text, /^ {2}app +Deployment apps\/v1 +wave 2 +<- db$/m);
    assert.match(text, /^ {2}db +Secret v1 +wave 1 +<- instance \[external\]$/m);
    assert.match(text, /^ {2}ing .*<- app \[conditional\]$/m);
    assert.match(text, /^ {2}perRegion .*<- instance \[collection\]$/m);
    assert.match(text, /^ {2}peers .*<- instance \[external\] \[collection\]$/m);
    assert.match(text, /^order: db -> app -> ing -> perRegion -> peers$/m);
    assert.match(text, /^legend: /m);
  });
  it("shows states from the overlay", () => {
    const overlaid = graphText(graph, { colorBy: { instance: "waiting", app: "ready", ing: "excluded" } });
    assert.match(overlaid, /^graph shop: instance Shop \(kro\.run\/v1alpha1\) {2}\{waiting\}$/m);
    assert.match(overlaid, /^ {2}app .*<- db {2}\{ready\}$/m);
    assert.match(overlaid, /^ {2}ing .*\{excluded\}$/m);
    assert.doesNotMatch(overlaid, /^ {2}db .*\{/m);
  });
});

describe("graphMermaid", () => {
  const mermaid = graphMermaid(graph);
  it("draws the instance as root and each trait with its own shape", () => {
    assert.match(mermaid, /^flowchart TD$/m);
    assert.match(mermaid, /^ {2}n_instance\(\["Shop<br\/>instance"\]\)$/m);
    assert.match(mermaid, /^ {2}n_app\["app<br\/>Deployment"\]$/m);
    assert.match(mermaid, /^ {2}n_perRegion\[\["perRegion<br\/>ConfigMap<br\/><i>collection<\/i>"\]\]$/m);
    assert.match(mermaid, /^ {2}n_db\[\/"db<br\/>Secret<br\/><i>external<\/i>"\/\]$/m);
    assert.match(mermaid, /^ {2}class n_ing,legend_conditional conditional$/m);
  });
  it("has one edge per dependency and instance edges only for nodes without one", () => {
    const edges = mermaid
      .split("\n")
      .filter((l) => l.includes("-->"))
      .map((l) => l.trim());
    assert.deepEqual(edges, [
      "n_instance --> n_db",
      "n_db --> n_app",
      "n_app --> n_ing",
      "n_instance --> n_perRegion",
      "n_instance --> n_peers",
    ]);
  });
  it("colours nodes by state with one class per state used", () => {
    const overlaid = graphMermaid(graph, { colorBy: { app: "error", db: "ready", peers: "ready" } });
    assert.match(overlaid, /^ {2}classDef error fill:#ffcdd2,stroke:#c62828$/m);
    assert.match(overlaid, /^ {2}class n_db,n_peers ready$/m);
    assert.match(overlaid, /^ {2}class n_app error$/m);
    assert.doesNotMatch(overlaid, /classDef pending/);
    assert.doesNotMatch(mermaid, /classDef ready/);
  });
});

describe("graphDot", () => {
  const dot = graphDot(graph);
  it("uses distinct shapes and styles per trait, and a legend cluster", () => {
    assert.match(dot, /^digraph "shop" \{$/m);
    assert.match(dot, /^ {2}"instance" \[label="Shop\\ninstance" shape=doubleoctagon\];$/m);
    assert.match(dot, /^ {2}"ing" \[label="ing\\nIngress\\n\(conditional\)" shape=box style="dashed,rounded"\];$/m);
    assert.match(dot, /^ {2}"perRegion" \[.*shape=box3d\];$/m);
    assert.match(dot, /^ {2}"db" \[.*shape=parallelogram\];$/m);
    assert.match(dot, /^ {2}"peers" \[.*shape=parallelogram peripheries=2\];$/m);
    assert.match(dot, /subgraph cluster_legend/);
    assert.match(dot, /^ {2}"db" -> "app";$/m);
    assert.match(dot, /^ {2}"instance" -> "peers";$/m);
    assert.doesNotMatch(dot, /"instance" -> "app"/);
  });
  it("fills coloured nodes and escapes quotes in names", () => {
    const overlaid = graphDot({ ...graph, name: 'a "quoted" name' }, { colorBy: { ing: "pending" } });
    assert.match(overlaid, /^digraph "a \\"quoted\\" name" \{$/m);
    assert.match(overlaid, /^ {2}"ing" \[.*style="dashed,rounded,filled" fillcolor="#bbdefb" color="#1565c0"\];$/m);
  });
});

describe("graphPicture", () => {
  it("dispatches on the format", () => {
    assert.equal(graphPicture(graph, "text"), graphText(graph));
    assert.equal(graphPicture(graph, "mermaid"), graphMermaid(graph));
    assert.equal(graphPicture(graph, "dot"), graphDot(graph));
  });
  it("still draws nodes the topological order misses (after the ordered ones)", () => {
    const text = graphText({ ...graph, topologicalOrder: ["app"] });
    assert.deepEqual(
      text
        .split("\n")
        .slice(1, 6)
        .map((l) => l.trim().split(/\s+/)[0]),
      ["app", "db", "ing", "perRegion", "peers"],
    );
  });
});
