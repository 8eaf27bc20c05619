// Stable randomness: a seeded source renders the same bytes for the same seed, other bytes for
// another seed (a new generation), and each template file draws from its own stream.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededEntropy, systemEntropy, uniformInt } from "./entropy.js";
import { renderHelmTemplates, type HelmTemplate } from "../helm/helm-engine.js";
import { parseTemplate, renderTemplate } from "../index.js";
import { goFunc } from "../go/functions.js";

const RANDOM = [
  "{{ randAlphaNum 12 }}",
  "{{ randAlpha 6 }}",
  "{{ randNumeric 6 }}",
  "{{ randAscii 8 }}",
  "{{ randInt 0 1000000 }}",
  "{{ randBytes 12 }}",
  '{{ shuffle "abcdefghijklmnop" }}',
  "{{ uuidv4 }}",
  "{{ now | unixEpoch }}",
  '{{ now | date "2006-01-02T15:04:05Z07:00" }}',
  '{{ ago (toDate "2006-01-02" "2020-01-01") }}',
].join("|");
const NOW = 1_700_000_000_123_456_789n;
const render = (seed: readonly string[], now = NOW): string =>
  renderTemplate(parseTemplate("t", RANDOM), {}, { entropy: seededEntropy(seed, now) });

describe("seeded entropy", () => {
  it("the same seed renders the same output, every time", () => {
    const first = render(["instance", "uid-1", "1"]);
    for (let i = 0; i < 20; i++) assert.equal(render(["instance", "uid-1", "1"]), first);
    assert.match(
      first,
      /^[A-Za-z0-9]{12}\|[A-Za-z]{6}\|\d{6}\|[ -~]{8}\|\d+\|[A-Za-z0-9+/]{16}\|[a-p]{16}\|[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\|1700000000\|2023-11-14T22:13:20Z\|/,
    );
  });

  it("another generation or another instance re-rolls every random value", () => {
    const a = render(["instance", "uid-1", "1"]).split("|");
    const b = render(["instance", "uid-1", "2"]).split("|");
    const c = render(["instance", "uid-2", "1"]).split("|");
    for (const i of [0, 1, 5, 6, 7]) {
      assert.notEqual(a[i], b[i], `field ${i} must change with the generation`);
      assert.notEqual(a[i], c[i], `field ${i} must change with the instance`);
    }
  });

  it("length-prefixes seed parts: (ab, c) and (a, bc) are different seeds", () => {
    assert.notEqual(render(["ab", "c"]), render(["a", "bc"]));
  });

  it("now is the seeded instant, not the wall clock", () => {
    assert.equal(
      renderTemplate(
        parseTemplate("t", "{{ now | unixEpoch }}"),
        {},
        { entropy: seededEntropy(["x"], 5_000_000_000n) },
      ),
      "5",
    );
  });

  it("forks are independent and stable", () => {
    const e = seededEntropy(["s"], 0n);
    const read = (src: typeof e): string => {
      const b = new Uint8Array(16);
      src.read(b);
      return Buffer.from(b).toString("hex");
    };
    assert.equal(read(e.fork("a")), read(seededEntropy(["s"], 0n).fork("a")));
    assert.notEqual(read(e.fork("a")), read(e.fork("b")));
  });

  it("uniformInt stays in range and reaches both ends", () => {
    const e = seededEntropy(["range"], 0n);
    const seen = new Set<bigint>();
    for (let i = 0; i < 2000; i++) {
      const v = uniformInt(e, 7n);
      assert.ok(v >= 0n && v < 7n);
      seen.add(v);
    }
    assert.equal(seen.size, 7);
    const big = (1n << 70n) + 3n;
    for (let i = 0; i < 100; i++) assert.ok(uniformInt(e, big) < big);
  });

  it("without a seed, renders differ (Sprig's behaviour)", () => {
    const t = parseTemplate("t", "{{ randAlphaNum 20 }}");
    assert.notEqual(renderTemplate(t, {}), renderTemplate(t, {}));
    assert.equal(systemEntropy.deterministic, false);
  });

  it("a caller's own function of the same name is not replaced", () => {
    const t = parseTemplate("t", "{{ randAlphaNum 3 }}", { funcs: { randAlphaNum: goFunc(["int"], () => "mine") } });
    assert.equal(renderTemplate(t, {}, { entropy: seededEntropy(["x"], 0n) }), "mine");
  });

  it("a huge count fails instead of looping for ever", () => {
    assert.throws(
      () => renderTemplate(parseTemplate("t", "{{ randAlphaNum 100000000000 }}"), {}),
      /larger than a render may output/,
    );
  });
});

describe("seeded entropy in Helm's engine", () => {
  const data = { Values: {}, Release: { Name: "r" }, Chart: {}, Capabilities: {}, Files: {}, Subcharts: {} };
  const file = (name: string, text: string): HelmTemplate => ({
    name: `c/templates/${name}`,
    text,
    data,
    basePath: "c/templates",
  });
  const helpers = file("_helpers.tpl", '{{ define "pw" }}{{ randAlphaNum 10 }}{{ end }}');

  it("each file draws from its own stream: adding a file changes no other file's output", () => {
    const a = file("a.yaml", 'a: {{ randAlphaNum 10 }} {{ include "pw" . }} {{ tpl "{{ uuidv4 }}" . }}');
    const b = file("b.yaml", "b: {{ randAlphaNum 10 }}");
    const one = renderHelmTemplates([helpers, a], { entropy: seededEntropy(["i", "1"], 0n) });
    const two = renderHelmTemplates([helpers, a, b], { entropy: seededEntropy(["i", "1"], 0n) });
    assert.equal(two.get("c/templates/a.yaml"), one.get("c/templates/a.yaml"));
    const again = renderHelmTemplates([helpers, a, b], { entropy: seededEntropy(["i", "1"], 0n) });
    assert.deepEqual([...again], [...two]);
    const next = renderHelmTemplates([helpers, a, b], { entropy: seededEntropy(["i", "2"], 0n) });
    assert.notEqual(next.get("c/templates/a.yaml"), two.get("c/templates/a.yaml"));
  });
});
