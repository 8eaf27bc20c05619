import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HelmContext } from "../../graph/index.js";
import { coalesceValues } from "./helm-data.js";
import { renderChartOutputs } from "./manifests.js";

const helm = (values?: Record<string, unknown>): HelmContext => ({
  templates: {
    "web/templates/cm.yaml":
      "probe:\n{{ toYaml .Values.probe | indent 2 }}\nsel: {{ toJson .Values.nodeSelector }}\n{{- with .Values.sub }}{{ if .on }}\nsub: on{{ end }}{{ end }}",
  },
  charts: [{ templatePrefix: "web/", valuesPath: [], metadata: { Name: "web" }, files: {} }],
  apiVersions: [],
  ...(values === undefined ? {} : { values }),
});
const render = (context: HelmContext, spec: Record<string, unknown>): string => {
  const out = renderChartOutputs(context, {
    apiVersion: "x/v1",
    kind: "Web",
    metadata: { name: "r", namespace: "ns" },
    spec,
  });
  assert.ok(out.ok, out.ok ? "" : out.error);
  return out.value.get("web/templates/cm.yaml") ?? "";
};

describe("an instance's spec over the chart's defaults, as Helm coalesces values", () => {
  const defaults = { probe: { path: "/", port: 80 }, nodeSelector: { os: "linux" }, sub: { on: true } };

  it("a null removes a default even inside a map printed whole; maps merge; what is not a default stays as given", () => {
    // What the API server stores for the instance: its defaults applied, the null kept (nullable).
    const spec = {
      probe: { path: null, port: 80 },
      nodeSelector: { os: "linux", disk: "ssd" },
      sub: { on: true },
      extra: null,
    };
    assert.equal(render(helm(defaults), spec), 'probe:\n  port: 80\nsel: {"disk":"ssd","os":"linux"}\nsub: on');
    assert.equal(
      render(helm(), spec),
      'probe:\n  path: null\n  port: 80\nsel: {"disk":"ssd","os":"linux"}\nsub: on',
      "an RGD imported before the defaults were carried renders as it did",
    );
    assert.deepEqual(coalesceValues(defaults, spec), {
      probe: { port: 80 },
      nodeSelector: { os: "linux", disk: "ssd" },
      sub: { on: true },
      extra: null,
    });
  });

  it("fills what a spec lacks (an instance written before a default existed), and a null drops a whole map", () => {
    assert.equal(render(helm(defaults), { sub: null }), 'probe:\n  path: /\n  port: 80\nsel: {"os":"linux"}');
  });
});
