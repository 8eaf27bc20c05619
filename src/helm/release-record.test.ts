// The release-record decoder on records captured from a real `helm install` + `helm upgrade`
// (helm v3.18.6 on the local control plane; chart with a schema, files, a hook and a test hook),
// and on hostile records.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, it } from "node:test";
import {
  decodeReleaseRecord,
  newestRecord,
  recordPayload,
  releaseChartFiles,
  ReleaseRecordError,
} from "./release-record.js";

interface Captured {
  items: { kind: string; metadata: { name: string; labels: Record<string, string> }; data: { release: string } }[];
}
const captured = JSON.parse(
  readFileSync(new URL("../../../test/data/helm/release-record-secrets.json", import.meta.url), "utf8"),
) as Captured;
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString("utf8");
/** Helm's encoding: base64(gzip(json)). */
const encode = (release: unknown, gzip = true) => {
  const json = Buffer.from(JSON.stringify(release));
  return (gzip ? gzipSync(json) : json).toString("base64");
};
const minimal = (chart: Record<string, unknown> = {}) => ({
  name: "r",
  namespace: "ns",
  version: 1,
  info: { status: "deployed" },
  config: null,
  manifest: "",
  chart: { metadata: { name: "c", version: "0.1.0" }, templates: [], values: {}, files: [], ...chart },
});

describe("decodeReleaseRecord", () => {
  it("reads a record helm wrote: release, values, chart files, schema, hooks", () => {
    const newest = newestRecord(
      captured.items.map((i) => ({ ...i, name: i.metadata.name, labels: i.metadata.labels })),
      "rich",
      "rich",
    );
    assert.equal(newest.name, "sh.helm.release.v1.rich.v2");
    const release = decodeReleaseRecord(recordPayload(newest));
    assert.equal(release.name, "rich");
    assert.equal(release.namespace, "rich");
    assert.equal(release.version, 2);
    assert.equal(release.status, "deployed");
    assert.deepEqual(
      release.config,
      { greeting: "bonjour", replicas: 2 },
      "the user's values only (--set, --reuse-values)",
    );
    // `helm upgrade --reuse-values` stores the previous revision's coalesced values as the chart's
    // defaults (helm's upgrade.go), so revision 2's defaults say "bonjour", not values.yaml's "hello".
    assert.deepEqual(release.chart.values, { greeting: "bonjour", replicas: 1 });
    assert.equal(release.chart.metadata.appVersion, "9.9");
    assert.deepEqual(
      release.hooks.map((h) => [h.name, h.events]),
      [
        ["rich-pre-install", ["pre-install"]],
        ["rich-test", ["test"]],
      ],
    );
    // Helm's last_run: the upgrade ran no hook (pre-install ran at revision 1), no `helm test` ran.
    assert.deepEqual(
      release.hooks.map((h) => h.lastRun.phase),
      ["", ""],
    );
    assert.match(release.manifest, /name: rich-config/);
    assert.match(release.hooks[0]?.manifest ?? "", /name: rich-pre-install[\s\S]*helm\.sh\/hook": pre-install/);

    const files = releaseChartFiles(release);
    assert.deepEqual([...files.keys()].sort(), [
      "Chart.yaml",
      "files/config.txt",
      "templates/configmap.yaml",
      "templates/hook.yaml",
      "templates/tests/test-connection.yaml",
      "values.schema.json",
      "values.yaml",
    ]);
    assert.deepEqual(JSON.parse(text(files.get("Chart.yaml"))), {
      apiVersion: "v2",
      name: "rich",
      version: "1.2.3",
      appVersion: "9.9",
      description: "a chart with a schema, files and hooks, captured as a release-record fixture",
      annotations: { "example.com/team": "platform" },
    });
    assert.deepEqual(JSON.parse(text(files.get("values.yaml"))), { greeting: "bonjour", replicas: 1 });
    const v1 = decodeReleaseRecord(
      recordPayload(captured.items.find((i) => i.metadata.labels.version === "1") ?? assert.fail("no v1")),
    );
    assert.deepEqual(
      [v1.status, v1.chart.values, v1.config],
      ["superseded", { greeting: "hello", replicas: 1 }, { greeting: "bonjour" }],
    );
    assert.equal(text(files.get("files/config.txt")), "line one\nline two\n");
    assert.match(text(files.get("templates/configmap.yaml")), /\.Files\.Glob "files\/\*"/);
    assert.equal(
      (JSON.parse(text(files.get("values.schema.json"))) as { properties: { replicas: { minimum: number } } })
        .properties.replicas.minimum,
      0,
    );
  });

  it("accepts an uncompressed record and a ConfigMap-driver record", () => {
    const payload = encode(minimal(), false);
    assert.equal(decodeReleaseRecord(payload).chart.metadata.name, "c");
    assert.equal(
      decodeReleaseRecord(
        recordPayload({ kind: "ConfigMap", metadata: { name: "x" }, data: { release: encode(minimal()) } }),
      ).name,
      "r",
    );
  });

  const refusals: [string, string, RegExp][] = [
    ["not base64", "%%%", /not base64/],
    ["gzip garbage", Buffer.from([0x1f, 0x8b, 1, 2, 3]).toString("base64"), /does not decompress/],
    ["not JSON", Buffer.from("{nope").toString("base64"), /not JSON/],
    ["a list", encode([1]), /^release: expected a release object/],
    ["no chart metadata", encode({ ...minimal(), chart: { templates: [] } }), /^release\.chart\.metadata: /],
    ["a version as text", encode({ ...minimal(), version: "1" }), /^release\.version: expected a number/],
    [
      "a template escaping the chart",
      encode(minimal({ templates: [{ name: "../../etc/passwd", data: "" }] })),
      /^release\.chart\.templates\[0\]\.name: .*not a plain chart-relative path/,
    ],
    [
      "an absolute file",
      encode(minimal({ files: [{ name: "/abs", data: "" }] })),
      /^release\.chart\.files\[0\]\.name: /,
    ],
    [
      "template data not base64",
      encode(minimal({ templates: [{ name: "templates/a.yaml", data: "not base64!" }] })),
      /^release\.chart\.templates\[0\]\.data: expected base64/,
    ],
    ["values not a map", encode({ ...minimal(), config: [1] }), /^release\.config: expected a map/],
  ];
  for (const [what, payload, message] of refusals) {
    it(`refuses ${what} with a path`, () => {
      assert.throws(
        () => decodeReleaseRecord(payload),
        (error: unknown) => error instanceof ReleaseRecordError && message.test(error.message),
      );
    });
  }

  it("refuses a decompression bomb instead of exhausting memory", () => {
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20)).toString("base64");
    assert.throws(() => decodeReleaseRecord(bomb), /does not decompress/);
  });

  it("refuses a chart with subcharts without --chart, naming them (Helm does not store them in the record)", () => {
    const release = decodeReleaseRecord(
      encode(
        minimal({
          metadata: { name: "c", version: "1", dependencies: [{ name: "redis" }, { name: "postgresql", alias: "db" }] },
        }),
      ),
    );
    assert.throws(
      () => releaseChartFiles(release),
      /release\.chart\.metadata\.dependencies: chart c declares subcharts \(redis, db\).*pass the chart the release was installed from with --chart/,
    );
  });

  it("takes subcharts and declared dependencies from the chart the release came from; templates and values from the record", () => {
    // Helm stores aliases as names and drops dependencies disabled at that install: the source's Chart.yaml is the truth.
    const release = decodeReleaseRecord(
      encode(
        minimal({
          metadata: { name: "c", version: "1", dependencies: [{ name: "db", alias: "db" }] },
          values: { a: 1 },
          templates: [{ name: "templates/x.yaml", data: Buffer.from("rec").toString("base64") }],
        }),
      ),
    );
    const source = new Map([
      [
        "Chart.yaml",
        Buffer.from(
          'apiVersion: v2\nname: c\nversion: 1\ndependencies:\n  - {name: postgresql, alias: db}\n  - {name: "off", condition: off.enabled}\n',
        ),
      ],
      ["templates/x.yaml", Buffer.from("source")],
      ["charts/postgresql/Chart.yaml", Buffer.from("name: postgresql")],
      ["charts/off-1.0.0.tgz", Buffer.from("tgz")],
    ]);
    const files = releaseChartFiles(release, source);
    assert.deepEqual((JSON.parse(text(files.get("Chart.yaml"))) as { dependencies: unknown }).dependencies, [
      { name: "postgresql", alias: "db" },
      { name: "off", condition: "off.enabled" },
    ]);
    assert.equal(text(files.get("templates/x.yaml")), "rec");
    assert.deepEqual(JSON.parse(text(files.get("values.yaml"))), { a: 1 });
    assert.deepEqual([...files.keys()].filter((k) => k.startsWith("charts/")).sort(), [
      "charts/off-1.0.0.tgz",
      "charts/postgresql/Chart.yaml",
    ]);
    const other = new Map([["Chart.yaml", Buffer.from("apiVersion: v2\nname: c\nversion: 2\n")]]);
    assert.throws(() => releaseChartFiles(release, other), /--chart is c 2, but the release was installed from c 1/);
  });

  it("refuses a file recorded twice", () => {
    const release = decodeReleaseRecord(
      encode(
        minimal({
          templates: [{ name: "templates/a.yaml", data: "" }],
          files: [{ name: "templates/a.yaml", data: "" }],
        }),
      ),
    );
    assert.throws(() => releaseChartFiles(release), /templates\/a\.yaml appears twice/);
  });
});

describe("newestRecord", () => {
  const ref = (version: string, status: string) => ({
    name: `sh.helm.release.v1.r.v${version}`,
    labels: { owner: "helm", name: "r", version, status },
  });
  it("picks the highest revision numerically (v10 after v9)", () => {
    assert.equal(
      newestRecord([ref("9", "superseded"), ref("10", "deployed"), ref("2", "superseded")], "r", "ns").name,
      "sh.helm.release.v1.r.v10",
    );
  });
  it("refuses a release whose newest revision is in flight or failed", () => {
    assert.throws(
      () => newestRecord([ref("1", "deployed"), ref("2", "pending-upgrade")], "r", "ns"),
      /revision 2 is pending-upgrade, not deployed; .*helm history r -n ns/,
    );
    assert.throws(() => newestRecord([ref("1", "failed")], "r", "ns"), /revision 1 is failed/);
  });
  it("accepts an uninstalled newest revision only when a migration marked it (a migration run again)", () => {
    const marked = {
      ...ref("1", "uninstalled"),
      annotations: { "helm.kro.run/migrated-to": "App ns/r (x.example.com/v1)" },
    };
    assert.equal(newestRecord([marked], "r", "ns"), marked);
    assert.throws(() => newestRecord([ref("1", "uninstalled")], "r", "ns"), /revision 1 is uninstalled, not deployed/);
  });
  it("says when there is no such release", () => {
    assert.throws(
      () => newestRecord([], "r", "ns"),
      /no Helm 3 release "r" in namespace ns \(no Secret or ConfigMap labelled owner=helm,name=r\)/,
    );
  });
});
