import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd, gzipText } from "../graph/index.js";
import { importHelmChart } from "./import-chart.js";
import type { ChartFiles } from "./types.js";
import { largeChartFiles } from "../../test/unit-support/helm/large-chart.js";

const enc = new TextEncoder();
const chart = (files: Record<string, string>): ChartFiles =>
  new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)]));

const SMALL = {
  "Chart.yaml": "apiVersion: v2\nname: gitops\nversion: 1.0.0\n",
  "values.yaml": "message: hi\n",
  "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n",
};

describe("kro import helm: large charts fit what etcd stores", () => {
  it("a chart whose CRD templates make 2.9 MB of text imports to an RGD under 1 MiB, with the big templates gzipped and nothing lost", () => {
    const files = largeChartFiles();
    const text = Object.values(files).reduce((n, t) => n + t.length, 0);
    assert.ok(text > 2.5 * 1024 * 1024, `the chart holds ${text} bytes of text`);
    const imported = importHelmChart(chart(files), { releaseName: "r", namespace: "ns" });
    const bytes = Buffer.byteLength(JSON.stringify(imported.rgd));
    assert.ok(bytes < 1024 * 1024, `RGD ${bytes} bytes as JSON`);
    assert.deepEqual(
      imported.warnings.filter((w) => /MiB as JSON/.test(w.message)),
      [],
      "no size warning",
    );
    const helm = (
      imported.rgd.spec as { helm: { templates: Record<string, string>; templatesGzip?: Record<string, string> } }
    ).helm;
    assert.deepEqual(Object.keys(helm.templates), ["gitops/templates/cm.yaml"], "small templates stay readable");
    assert.equal(Object.keys(helm.templatesGzip ?? {}).length, 8);
    const compiled = compileRgd(imported.rgd);
    assert.ok(compiled.graph?.dialect === "template", compiled.issues.map((i) => i.message).join("\n"));
    for (const [name, text] of Object.entries(files))
      if (name.startsWith("templates/")) assert.equal(compiled.graph.helm?.templates[`gitops/${name}`], text, name);
    assert.equal(compiled.graph.nodes.filter((n) => n.id.startsWith("crds")).length, 8, "a child per CRD template");
  });

  it("a small chart's RGD carries its templates as text", () => {
    const helm = (importHelmChart(chart(SMALL), { releaseName: "r" }).rgd.spec as { helm: Record<string, unknown> })
      .helm;
    assert.equal(helm.templatesGzip, undefined);
    assert.deepEqual(Object.keys(helm.templates as object), ["gitops/templates/cm.yaml"]);
  });
});

describe("kro import helm: the chart's default values ride in spec.helm", () => {
  it("as an object in a small RGD, compiled into the graph unchanged", () => {
    const imported = importHelmChart(
      chart({ ...SMALL, "values.yaml": "message: hi\nprobe:\n  path: /\n  port: 80\n" }),
      { releaseName: "r" },
    );
    const helm = (imported.rgd.spec as { helm: Record<string, unknown> }).helm;
    assert.deepEqual(helm.values, { message: "hi", probe: { path: "/", port: 80 } });
    assert.equal(helm.valuesGzip, undefined);
    const compiled = compileRgd(imported.rgd);
    assert.ok(compiled.graph?.dialect === "template", compiled.issues.map((i) => i.message).join("\n"));
    assert.deepEqual(compiled.graph.helm?.values, { message: "hi", probe: { path: "/", port: 80 } });
  });

  it("gzipped with the templates when the RGD is too large, and read back whole", () => {
    const big = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`key${i}`, { text: `value number ${i} `.repeat(3) }]),
    );
    const files = { ...largeChartFiles(), "values.yaml": JSON.stringify(big) };
    const imported = importHelmChart(chart(files), { releaseName: "r", namespace: "ns" });
    const helm = (imported.rgd.spec as { helm: Record<string, unknown> }).helm;
    assert.equal(helm.values, undefined);
    assert.equal(typeof helm.valuesGzip, "string");
    const compiled = compileRgd(imported.rgd);
    assert.ok(compiled.graph?.dialect === "template", compiled.issues.map((i) => i.message).join("\n"));
    assert.deepEqual(compiled.graph.helm?.values, big);
  });

  it("refuses values that are not an object, given twice, or gzip that is not the JSON of an object, at their path", () => {
    const imported = importHelmChart(chart(SMALL), { releaseName: "r" });
    const spec = imported.rgd.spec as { helm: Record<string, unknown> };
    const withHelm = (helm: Record<string, unknown>) =>
      compileRgd({ ...imported.rgd, spec: { ...spec, helm: { ...spec.helm, values: undefined, ...helm } } }).issues.map(
        (i) => `${i.path.join(".")}: ${i.message}`,
      );
    assert.deepEqual(withHelm({ values: [1] }), [
      "spec.helm.values: spec.helm.values must be an object (the chart's default values)",
    ]);
    assert.deepEqual(withHelm({ values: {}, valuesGzip: gzipText("{}") }), [
      "spec.helm.valuesGzip: values are given both as an object and gzipped: keep one",
    ]);
    assert.deepEqual(withHelm({ valuesGzip: gzipText("[1]") }), [
      "spec.helm.valuesGzip: spec.helm.valuesGzip must hold the JSON of an object (the chart's default values)",
    ]);
    assert.deepEqual(withHelm({ valuesGzip: "not base64!" }), [
      "spec.helm.valuesGzip: spec.helm values must be base64 of gzip data",
    ]);
  });
});
