import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, it } from "node:test";
import { compileRgd } from "../compile.js";
import { gzipText } from "./helm-compression.js";

const DEPLOY =
  'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\ndata: {f: {{ .Files.Get "conf/app.conf" | quote }}}\n';

function rgd(helm: Record<string, unknown>) {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "ZApp" },
      helm: {
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
        ...helm,
      },
      childResources: [{ id: "cm", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/cm.yaml" }],
    },
  };
}
const messages = (value: ReturnType<typeof compileRgd>) => value.issues.map((i) => `${i.path.join(".")}: ${i.message}`);

describe("spec.helm with gzipped templates and files", () => {
  it("inflates templatesGzip and filesGzip into the same chart context as text would give", () => {
    const plain = compileRgd(
      rgd({
        templates: { "c/templates/cm.yaml": DEPLOY },
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c" }, files: { "conf/app.conf": "a=1" } }],
      }),
    );
    const packed = compileRgd(
      rgd({
        templatesGzip: { "c/templates/cm.yaml": gzipText(DEPLOY) },
        charts: [
          {
            templatePrefix: "c/",
            valuesPath: [],
            metadata: { name: "c" },
            filesGzip: { "conf/app.conf": gzipText("a=1") },
          },
        ],
      }),
    );
    assert.ok(plain.graph?.dialect === "template" && packed.graph?.dialect === "template", messages(packed).join("\n"));
    const [ours, theirs] = [packed.graph.helm, plain.graph.helm];
    assert.ok(ours && theirs);
    assert.equal(ours.templates["c/templates/cm.yaml"], DEPLOY);
    assert.deepEqual(ours.templates, theirs.templates);
    assert.deepEqual(ours.charts, theirs.charts);
  });

  it("a broken entry is an issue at its path: not base64, not gzip, not UTF-8, named twice, a template that does not parse", () => {
    const result = compileRgd(
      rgd({
        templates: { "c/templates/cm.yaml": DEPLOY },
        templatesGzip: {
          "c/templates/cm.yaml": gzipText(DEPLOY),
          "c/templates/a.yaml": "not base64!",
          "c/templates/b.yaml": Buffer.from("plain text").toString("base64"),
          "c/templates/c.yaml": gzipSync(Buffer.from([0xff, 0xfe, 0x00])).toString("base64"),
          "c/templates/d.yaml": gzipText("{{ if }}"),
        },
      }),
    );
    assert.equal(result.graph, undefined);
    const text = messages(result).join("\n");
    assert.match(
      text,
      /spec\.helm\.templatesGzip\.c\/templates\/cm\.yaml: c\/templates\/cm\.yaml is given both as text and gzipped/,
    );
    assert.match(
      text,
      /templatesGzip\.c\/templates\/a\.yaml: spec\.helm\.templatesGzip values must be base64 of gzip data/,
    );
    assert.match(text, /templatesGzip\.c\/templates\/b\.yaml: not gzip data/);
    assert.match(text, /templatesGzip\.c\/templates\/c\.yaml: inflates to bytes that are not UTF-8 text/);
    assert.match(text, /templatesGzip\.c\/templates\/d\.yaml: .*missing value for if/);
  });

  it("a gzip bomb is refused without inflating it: one entry past 8 MiB, or all of them past 64 MiB", () => {
    const bomb = gzipSync(Buffer.alloc(9 * 1024 * 1024, 0x20)).toString("base64");
    assert.ok(bomb.length < 64 * 1024, "the bomb itself is small");
    const one = compileRgd(
      rgd({ templates: { "c/templates/cm.yaml": DEPLOY }, templatesGzip: { "c/templates/big.yaml": bomb } }),
    );
    assert.match(messages(one).join("\n"), /templatesGzip\.c\/templates\/big\.yaml: inflates past 8 MiB/);
    const seven = gzipSync(Buffer.alloc(7 * 1024 * 1024, 0x20)).toString("base64");
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`c/templates/t${i}.yaml`, seven]));
    const all = compileRgd(rgd({ templates: { "c/templates/cm.yaml": DEPLOY }, templatesGzip: many }));
    assert.match(messages(all).join("\n"), /templatesGzip\.c\/templates\/t9\.yaml: inflates past 64 MiB/);
  });
});
