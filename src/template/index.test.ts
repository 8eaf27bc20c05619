// The public API: parse/render options, error kinds and positions, the execution budget, the
// dialect's int64 numbers, and templates shaped like the seed's NginxApp walkthrough.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FuncError, goFunc, parseTemplate, renderTemplate, TemplateError } from "./index.js";

const render = (text: string, data: unknown, options = {}): string =>
  renderTemplate(parseTemplate("t", text), data, options);
function failure(f: () => unknown): TemplateError {
  try {
    f();
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  assert.fail("expected a TemplateError");
}

describe("template API", () => {
  const table: { name: string; text: string; data: unknown; want: string }[] = [
    {
      name: "int64 replicas print as integers",
      text: "replicas: {{.spec.replicas}}",
      data: { spec: { replicas: 1000000 } },
      want: "replicas: 1000000",
    },
    {
      name: "readyWhen comparison with default",
      text: "{{ ge (.self.status.availableReplicas | default 0) 1 }}",
      data: { self: { status: {} } },
      want: "false",
    },
    {
      name: "readyWhen comparison with value",
      text: "{{ ge (.self.status.availableReplicas | default 0) 1 }}",
      data: { self: { status: { availableReplicas: 2 } } },
      want: "true",
    },
    {
      name: "condition",
      text: "{{.parent.spec.ingress.enabled}}",
      data: { parent: { spec: { ingress: { enabled: true } } } },
      want: "true",
    },
    {
      name: "missing child field",
      text: "{{ .children.service.spec.clusterIP }}",
      data: { children: { service: { spec: {} } } },
      want: "<no value>",
    },
    { name: "floats stay floats", text: '{{.x}} {{printf "%T" .x}}', data: { x: 0.5 }, want: "0.5 float64" },
  ];
  for (const c of table)
    it(c.name, () => {
      assert.equal(render(c.text, c.data), c.want);
    });

  it("renders the float64 view when asked", () => {
    assert.equal(render("{{.x}}", { x: 1000000 }, { integers: "float64" }), "1e+06");
  });

  it("parse errors carry Go's message and a 1-based position", () => {
    const e = failure(() => parseTemplate("child", "a\nb {{ .x }\n"));
    assert.equal(e.kind, "parse");
    assert.equal(e.message, 'template: child:2: unexpected "}" in operand');
    assert.equal(e.line, 2);
  });

  it("exec errors carry Go's message and the node's 1-based line/column", () => {
    const e = failure(() => render("ok\n  {{ .x.y }}", { x: null }));
    assert.equal(e.kind, "exec");
    assert.equal(e.message, 'template: t:2:7: executing "t" at <.x.y>: nil pointer evaluating interface {}.y');
    assert.deepEqual([e.line, e.column], [2, 8]);
  });

  it("missingkey=error reports the key", () => {
    const e = failure(() => render("{{.nope}}", {}, { missingKey: "error" }));
    assert.match(e.message, /map has no entry for key "nope"$/);
  });

  it("stops an endless template with a budget error", () => {
    const t = parseTemplate("t", '{{define "f"}}{{range 1000}}{{template "f" .}}{{end}}{{end}}{{template "f"}}');
    const e = failure(() => renderTemplate(t, {}, { maxSteps: 50_000 }));
    assert.equal(e.kind, "budget");
    const big = failure(() =>
      renderTemplate(parseTemplate("t", "{{range 100000}}xxxxxxxxxx{{end}}"), {}, { maxOutputLength: 1000 }),
    );
    assert.equal(big.kind, "budget");
  });

  it("does not change the caller's data", () => {
    const data = { m: { a: 1 } };
    render('{{ $_ := set .m "b" 2 }}', data);
    assert.deepEqual(data, { m: { a: 1 } });
  });

  it("accepts caller functions, with Go's error wording", () => {
    const funcs = {
      twice: goFunc(["string"], (s: string) => s + s),
      boom: goFunc([], () => {
        throw new FuncError("bad");
      }),
    };
    assert.equal(renderTemplate(parseTemplate("t", '{{ twice "ab" }}', { funcs }), {}), "abab");
    const e = failure(() => renderTemplate(parseTemplate("t", "{{ boom }}", { funcs }), {}));
    assert.equal(e.message, 'template: t:1:3: executing "t" at <boom>: error calling boom: bad');
    assert.throws(() => parseTemplate("t", "{{ upper 1 }}", { sprig: false }), /function "upper" not defined/);
  });

  it("renders a named template and lists definitions", () => {
    const t = parseTemplate("t", '{{define "a"}}A{{.}}{{end}}main');
    assert.deepEqual(t.definedTemplates, ["a", "t"]);
    assert.equal(renderTemplate(t, 1, { templateName: "a" }), "A1");
  });

  it("renders the seed's Deployment template", () => {
    const text = [
      "spec:",
      "  replicas: {{ .parent.spec.replicas }}",
      "  selector:",
      "    matchLabels:",
      "      app: {{ .parent.metadata.name }}",
      "  template:",
      "    spec:",
      "      containers:",
      "        - name: nginx",
      '          image: {{ .parent.spec.image | default "nginx:latest" | quote }}',
      "{{- with .parent.spec.resources }}",
      "          resources: {{- toYaml . | nindent 12 }}",
      "{{- end }}",
    ].join("\n");
    const data = {
      parent: { metadata: { name: "my-nginx" }, spec: { replicas: 2, resources: { limits: { cpu: "500m" } } } },
    };
    assert.equal(
      render(text, data),
      [
        "spec:",
        "  replicas: 2",
        "  selector:",
        "    matchLabels:",
        "      app: my-nginx",
        "  template:",
        "    spec:",
        "      containers:",
        "        - name: nginx",
        '          image: "nginx:latest"',
        "          resources:",
        "            limits:",
        "              cpu: 500m",
      ].join("\n"),
    );
  });
});
