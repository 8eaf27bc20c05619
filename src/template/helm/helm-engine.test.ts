// Behaviour of the template-set API and Helm's engine beyond what the golden files show:
// hostile templates (unbounded recursion, runaway loops), the lookup port, error locations,
// isolation of the caller's data, tpl's private definitions, and typed objects with methods.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  executeTemplate,
  goFunc,
  GoObject,
  helmChartTemplates,
  isTemplateError,
  parseTemplateSet,
  renderHelmTemplates,
  TemplateError,
  type HelmTemplate,
} from "../index.js";

const one = (text: string, data: Record<string, unknown> = {}, extra: Record<string, string> = {}): HelmTemplate[] => {
  const shared = { Values: {}, Release: { Name: "r", Namespace: "n" }, ...data };
  return [["c/templates/t.yaml", text], ...Object.entries(extra)].map(([name = "", t = ""]) => ({
    name,
    text: t,
    data: shared,
    basePath: "c/templates",
  }));
};
const render = (
  text: string,
  data: Record<string, unknown> = {},
  extra: Record<string, string> = {},
  options = {},
): string => renderHelmTemplates(one(text, data, extra), options).get("c/templates/t.yaml") ?? "";
const failure = (f: () => unknown): TemplateError => {
  try {
    f();
  } catch (e) {
    assert.ok(isTemplateError(e), `expected a TemplateError, got ${String(e)}`);
    return e;
  }
  assert.fail("expected a failure");
};

describe("Helm engine: hostile templates", () => {
  it("unbounded include recursion ends in a TemplateError, every time", () => {
    for (let i = 0; i < 5; i++) {
      const e = failure(() =>
        render(
          `{{ include "loop" . }}`,
          {},
          { "c/templates/_h.tpl": `{{ define "loop" }}{{ include "loop" . }}{{ end }}` },
        ),
      );
      assert.match(e.message, /nests too deeply|nested reference name/);
    }
  });
  it("mutual include recursion and recursion through tpl end in a TemplateError", () => {
    failure(() =>
      render(
        `{{ include "a" . }}`,
        {},
        {
          "c/templates/_h.tpl": `{{ define "a" }}{{ include "b" . }}{{ end }}{{ define "b" }}{{ include "a" . }}{{ end }}`,
        },
      ),
    );
    failure(() => render(`{{ tpl .Values.t . }}`, { Values: { t: "{{ tpl .Values.t . }}" } }));
  });
  it("a runaway loop stops at the step budget shared by include and tpl", () => {
    const e = failure(() =>
      render(
        `{{ range until 1000 }}{{ include "inner" . }}{{ end }}`,
        {},
        { "c/templates/_h.tpl": `{{ define "inner" }}{{ range until 1000 }}x{{ end }}{{ end }}` },
        { maxSteps: 50_000 },
      ),
    );
    assert.equal(e.kind, "budget");
  });
  it("output beyond the limit is a budget error", () => {
    assert.equal(
      failure(() => render(`{{ range until 100 }}{{ repeat 1000 "x" }}{{ end }}`, {}, {}, { maxOutputLength: 10_000 }))
        .kind,
      "budget",
    );
  });
});

describe("Helm engine: errors point into the file that failed", () => {
  it("an action inside a helper reports the helper file and line", () => {
    const e = failure(() =>
      render(
        `a\n{{ include "h" . }}`,
        { Values: { a: {} } },
        { "c/templates/_h.tpl": `\n\n{{ define "h" }}{{ .Values.a.b.c }}{{ end }}` },
      ),
    );
    assert.equal(e.file, "c/templates/_h.tpl");
    assert.equal(e.line, 3);
    assert.match(e.message, /^template: c\/templates\/t\.yaml:2:3: .*_h\.tpl:3:/);
  });
  it("a parse error names its file, as Helm words it", () => {
    const e = failure(() => render(`ok`, {}, { "c/templates/bad.yaml": "a\n{{ if }}" }));
    assert.equal(e.kind, "parse");
    assert.equal(e.file, "c/templates/bad.yaml");
    assert.equal(e.message, "parse error at (c/templates/bad.yaml:2): missing value for if");
  });
  it("required and fail read as Helm prints them", () => {
    assert.equal(
      failure(() => render(`\n  {{ required "need x" .Values.x }}`)).message,
      "execution error at (c/templates/t.yaml:2:5): need x",
    );
  });
  it("an unsupported Sprig function fails naming itself", () => {
    assert.match(
      failure(() => render(`{{ durationRound "2h10m" }}`)).message,
      /durationRound is not supported by kro-ts's template engine/,
    );
  });
});

describe("Helm engine: lookup port", () => {
  it("offline lookup returns an empty map, as helm template does", () => {
    assert.equal(render(`{{ len (lookup "v1" "Secret" "n" "s") }}|{{ (lookup "v1" "Secret" "n" "s").data }}`), "0|");
  });
  it("the port's object is read like Helm's, numbers as float64", () => {
    const calls: string[][] = [];
    const lookup = (...a: string[]) => {
      calls.push(a);
      return { data: { k: "dg==" }, spec: { replicas: 3 } };
    };
    assert.equal(
      render(
        `{{ (lookup "v1" "Secret" .Release.Namespace "s").data.k | b64dec }} {{ printf "%T" (lookup "apps/v1" "Deployment" "n" "d").spec.replicas }}`,
        {},
        {},
        { lookup },
      ),
      "v float64",
    );
    assert.deepEqual(calls, [
      ["v1", "Secret", "n", "s"],
      ["apps/v1", "Deployment", "n", "d"],
    ]);
  });
  it("a failing port fails the render with its message and the action's position", () => {
    const e = failure(() =>
      render(
        `{{ lookup "v1" "Secret" "n" "s" }}`,
        {},
        {},
        {
          lookup: () => {
            throw new Error("forbidden");
          },
        },
      ),
    );
    assert.match(e.message, /at <lookup "v1" "Secret" "n" "s">: error calling lookup: forbidden$/);
  });
});

describe("Helm engine: data", () => {
  it("templates can set values for files rendered later (Helm's order) without touching the caller's data", () => {
    const values = { a: 1 };
    const data = { Values: values };
    const out = renderHelmTemplates([
      // Helm renders b.yaml before a.yaml (same depth: reverse lexical order).
      { name: "c/templates/b.yaml", text: `{{ $_ := set .Values "seen" "yes" }}`, data, basePath: "c/templates" },
      { name: "c/templates/a.yaml", text: `{{ .Values.seen }}`, data, basePath: "c/templates" },
    ]);
    assert.deepEqual(Object.fromEntries(out), { "c/templates/a.yaml": "yes", "c/templates/b.yaml": "" });
    assert.deepEqual(values, { a: 1 });
  });
  it("a define inside tpl stays private to that tpl call", () => {
    const e = failure(() => render(`{{ tpl "{{ define \\"p\\" }}P{{ end }}" . }}{{ include "p" . }}`));
    assert.match(e.message, /no template "p" associated with template "gotpl"/);
  });
  it("helmChartTemplates scopes subchart values and names files as Helm does", () => {
    const chart = {
      metadata: { name: "top", version: "1.0.0" },
      templates: [{ name: "templates/t.yaml", text: "{{ .Values.sub.x }}" }],
      subcharts: [
        {
          metadata: { name: "sub" },
          templates: [{ name: "templates/s.yaml", text: "{{ .Values.x }} {{ .Chart.Name }} {{ .Template.Name }}" }],
        },
      ],
    };
    const out = renderHelmTemplates(
      helmChartTemplates(
        chart,
        { sub: { x: 7 } },
        { name: "r", namespace: "n" },
        { kubeVersion: "1.30", apiVersions: [] },
      ),
    );
    assert.deepEqual(Object.fromEntries(out), {
      "top/charts/sub/templates/s.yaml": "7 sub top/charts/sub/templates/s.yaml",
      "top/templates/t.yaml": "7",
    });
  });
});

describe("template sets", () => {
  it("a later definition wins, an empty one never replaces a real one", () => {
    const set = parseTemplateSet("root", [
      { name: "a", text: `{{ define "x" }}first{{ end }}` },
      { name: "b", text: `{{ define "x" }}second{{ end }}` },
      { name: "c", text: `{{ define "x" }}  {{ end }}{{ template "x" }}` },
    ]);
    assert.equal(executeTemplate(set, "c", {}), "second");
  });
  it("typed objects expose methods with Go's argument checks", () => {
    const obj = new GoObject({
      typeName: "demo.Thing",
      kind: "struct",
      fields: { Name: "n" },
      methods: { Twice: goFunc(["string"], (s: string) => s + s) },
    });
    const set = parseTemplateSet("root", [
      { name: "t", text: `{{ .o.Twice "ab" }} {{ .o.Name }}` },
      { name: "u", text: `{{ .o.Twice }}` },
      { name: "v", text: `{{ .o.Nope }}` },
    ]);
    assert.equal(executeTemplate(set, "t", { o: obj }), "abab n");
    assert.match(
      failure(() => executeTemplate(set, "u", { o: obj })).message,
      /wrong number of args for Twice: want 1 got 0/,
    );
    assert.equal(executeTemplate(set, "t", { o: obj }, { missingKey: "error" }), "abab n");
    assert.match(
      failure(() => executeTemplate(set, "v", { o: obj })).message,
      /can't evaluate field Nope in type interface \{\}/,
    );
  });
});
