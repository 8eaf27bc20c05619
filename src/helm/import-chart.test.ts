import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { describe, it } from "node:test";
import { decodeChartArchive } from "./chart-archive.js";
import { importHelmChart } from "./import-chart.js";
import { isHelmImportError, type ChartFiles } from "./types.js";

const enc = new TextEncoder();
const chart = (files: Record<string, string>): ChartFiles =>
  new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)]));

/** A minimal ustar archive (what `helm package` writes, without checksums, which the reader ignores). */
function tar(entries: Record<string, string>): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const [name, text] of Object.entries(entries)) {
    const data = enc.encode(text);
    const header = new Uint8Array(512);
    header.set(enc.encode(name).subarray(0, 100), 0);
    header.set(enc.encode(data.length.toString(8).padStart(11, "0")), 124);
    header[156] = "0".charCodeAt(0);
    blocks.push(header, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const b of blocks) {
    out.set(b, offset);
    offset += b.length;
  }
  return gzipSync(out);
}

const BASE = {
  "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
  "values.yaml": "# How many.\nreplicas: 1\nconfig:\n  enabled: true\n",
  "templates/_helpers.tpl": '{{- define "shop.name" -}}{{ .Release.Name }}-shop{{- end -}}\n',
  "templates/app.yaml": [
    "{{- if .Values.config.enabled }}",
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    '  name: {{ include "shop.name" . }}',
    "---",
    "{{- end }}",
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    '  name: {{ include "shop.name" . }}',
    "spec:",
    "  replicas: {{ .Values.replicas }}",
    "  selector: {matchLabels: {a: b}}",
    "  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}",
  ].join("\n"),
  "templates/pre.yaml":
    'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: pre\n  annotations:\n    "helm.sh/hook": pre-install\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}\n',
  "templates/tests/t.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n",
  "templates/secret.yaml":
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  token: {{ randAlphaNum 8 | quote }}\n",
};

type Child = {
  id: string;
  kind: string;
  manifests: string;
  dependsOn?: string[];
  readyWhen?: string[];
  condition?: string;
};
const childrenOf = (rgd: Record<string, unknown>): Child[] => (rgd.spec as { childResources: Child[] }).childResources;

describe("importHelmChart", () => {
  it("makes one manifests child per template and kind, ordered like helm install, hooks first, tests dropped", () => {
    const result = importHelmChart(chart(BASE), { releaseName: "r" });
    const children = childrenOf(result.rgd);
    assert.deepEqual(children.map((c) => `${c.id}:${c.kind}`).sort(), [
      "appConfigMap:ConfigMap",
      "appDeployment:Deployment",
      "preJob:Job",
      "secret:Secret",
    ]);
    const byId = new Map(children.map((c) => [c.id, c]));
    assert.deepEqual(byId.get("preJob")?.dependsOn, undefined, "a pre-install hook waits for nothing");
    assert.deepEqual(byId.get("secret")?.dependsOn, ["preJob"]);
    assert.deepEqual(
      byId.get("appConfigMap")?.dependsOn,
      ["preJob", "secret"],
      "ConfigMap after Secret, as Helm installs",
    );
    assert.deepEqual(byId.get("appDeployment")?.dependsOn, ["preJob", "appConfigMap"]);
    assert.equal(byId.get("appDeployment")?.readyWhen?.length, 1, "a Deployment is ready like --wait");
    assert.equal(byId.get("appConfigMap")?.readyWhen, undefined);
    assert.deepEqual(result.instance.spec, { replicas: 1, config: { enabled: true } });
    const warnings = result.warnings.map((w) => `${w.file ?? ""}:${w.line ?? ""}`);
    assert.ok(warnings.includes("templates/tests/t.yaml:6"), JSON.stringify(result.warnings));
    assert.ok(warnings.includes("templates/secret.yaml:6"), "a random function is named with its line");
    assert.ok(warnings.includes("templates/pre.yaml:6"), "the hook's conversion is said");
  });

  it("finds a kind its default values do not render, and describes values from comments", () => {
    const result = importHelmChart(chart(BASE), { values: [{ config: { enabled: false } }] });
    assert.ok(
      childrenOf(result.rgd).some((c) => c.id === "appConfigMap"),
      "kinds behind a false if come from the template text",
    );
    const spec =
      (
        result.crd.spec as {
          versions: {
            schema: {
              openAPIV3Schema: {
                properties: { spec: { properties: Record<string, { description?: string; default?: unknown }> } };
              };
            };
          }[];
        }
      ).versions[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {};
    assert.equal(spec.replicas?.description, "How many.");
    assert.deepEqual(
      result.instance.spec,
      { replicas: 1, config: { enabled: false } },
      "--values applied over values.yaml",
    );
    assert.equal(result.instance.kind, "ShopApp");
  });

  it("a template that fails is named in the warnings; the others are not blamed for it", () => {
    const result = importHelmChart(
      chart({
        "Chart.yaml": "apiVersion: v2\nname: two\nversion: 0.1.0\n",
        "values.yaml": "{}\n",
        "templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        "templates/b.yaml":
          'apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  - port: {{ required "need port" .Values.port }}\n',
      }),
    );
    const byFile = new Map(result.warnings.map((w) => [w.file, w.message]));
    assert.match(byFile.get("templates/b.yaml") ?? "", /^does not render with the chart's values \(.*need port\)/);
    assert.match(
      byFile.get("templates/a.yaml") ?? "",
      /^its kinds come from its text alone: the chart does not render with its values, because template two\/templates\/b\.yaml fails/,
    );
  });

  it("reads a packaged chart and rejects archives that escape the chart", () => {
    const files = decodeChartArchive(
      tar(Object.fromEntries(Object.entries(BASE).map(([k, v]) => [`shop/${k}`, v]))),
      "shop.tgz",
    );
    assert.equal(new TextDecoder().decode(files.get("Chart.yaml")), BASE["Chart.yaml"]);
    assert.equal(childrenOf(importHelmChart(files).rgd).length, 4);
    assert.throws(() => decodeChartArchive(tar({ "shop/../../etc/x": "no" }), "evil.tgz"), /escapes the chart/);
    assert.throws(() => decodeChartArchive(enc.encode("not gzip"), "x.tgz"), /x\.tgz: not a gzipped chart archive/);
  });

  it("warns before the objects it writes outgrow a default etcd (1 MiB and up, after gzipping what it can), naming the object and its size", () => {
    // Text gzip cannot shrink (random base64): a chart of binary-like files.
    let seed = 7;
    const noise = (bytes: number) =>
      Array.from({ length: bytes }, () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        seed >>>= 0;
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charAt(seed & 63);
      }).join("");
    const small = importHelmChart(chart(BASE));
    assert.deepEqual(
      small.warnings.filter((w) => /as JSON/.test(w.message)),
      [],
    );
    const medium = importHelmChart(chart({ ...BASE, "files/blob.txt": noise(300 * 1024) }));
    assert.match(
      medium.warnings.map((w) => w.message).join("\n"),
      /the ResourceGraphDefinition is 3\d\d KiB as JSON: apply it with kubectl apply --server-side \(or kubectl create\); a client-side kubectl apply copies it into the last-applied-configuration annotation/,
    );
    const near = importHelmChart(chart({ ...BASE, "files/blob.txt": noise(1.2 * 1024 * 1024) }));
    const sized = near.warnings.filter((w) => /as JSON/.test(w.message)).map((w) => w.message);
    assert.equal(sized.length, 1, sized.join("\n"));
    assert.match(
      sized[0] ?? "",
      /^the ResourceGraphDefinition is 1\.\d\d MiB as JSON: close to a default etcd's 1\.5 MiB limit per object; it carries every template and file of the chart/,
    );
    const over = importHelmChart(chart({ ...BASE, "files/blob.txt": noise(2 * 1024 * 1024) }));
    assert.match(
      over.warnings.map((w) => w.message).join("\n"),
      /the ResourceGraphDefinition is 2\.\d\d MiB as JSON: a default etcd refuses objects over 1\.5 MiB/,
    );
  });

  it("names the file and line of what is wrong with a chart", () => {
    const fails = (files: Record<string, string>, pattern: RegExp): void => {
      assert.throws(
        () => importHelmChart(chart(files)),
        (e: unknown) => isHelmImportError(e) && pattern.test(e.message),
      );
    };
    fails({ "values.yaml": "a: 1" }, /^Chart\.yaml: not a Helm chart/);
    fails({ ...BASE, "Chart.yaml": "apiVersion: v3\nname: x\nversion: 1" }, /^Chart\.yaml: apiVersion "v3"/);
    fails({ ...BASE, "values.yaml": "a: [1,\n" }, /^values\.yaml:\d+: /);
    fails({ ...BASE, "values.schema.json": "{" }, /^values\.schema\.json: not a JSON schema/);
  });
});
