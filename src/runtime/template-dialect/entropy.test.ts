// The instance's seeded source: UID + generation pick the stream, the render-time annotation
// (when it names the current generation) the clock; and when the controller must record one.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { parseTemplate, renderTemplate } from "../../template/index.js";
import { graphReadsClock, instanceEntropy, parseRenderTime, renderTimeToRecord } from "./entropy.js";

const instance = (generation: number, annotations: Record<string, string> = {}, uid = "u-1") => ({
  apiVersion: "x/v1",
  kind: "App",
  metadata: { name: "a", namespace: "n", uid, generation, creationTimestamp: "2025-01-02T03:04:05Z", annotations },
});
const T = parseTemplate("t", "{{ randAlphaNum 16 }} {{ now | unixEpoch }}");
const run = (o: ReturnType<typeof instance>): string => {
  const entropy = instanceEntropy(o);
  return renderTemplate(T, {}, entropy === undefined ? {} : { entropy: entropy.fork("t") });
};

describe("instanceEntropy", () => {
  it("is stable per (uid, generation) and re-rolls on a new generation", () => {
    assert.equal(run(instance(3)), run(instance(3)));
    assert.notEqual(run(instance(3)).split(" ")[0], run(instance(4)).split(" ")[0]);
    assert.notEqual(run(instance(3)).split(" ")[0], run(instance(3, {}, "u-2")).split(" ")[0]);
  });

  it("reads now from the annotation of the current generation, else the creation time", () => {
    assert.equal(
      run(instance(2, { [ANNOTATIONS.renderTime]: "2@2026-12-01T05:00:00Z" })).split(" ")[1],
      String(Date.parse("2026-12-01T05:00:00Z") / 1000),
    );
    // A stale record (another generation) is not used.
    assert.equal(
      run(instance(3, { [ANNOTATIONS.renderTime]: "2@2026-12-01T05:00:00Z" })).split(" ")[1],
      String(Date.parse("2025-01-02T03:04:05Z") / 1000),
    );
  });

  it("without a UID (a file rendered offline) there is no seeded source", () => {
    assert.equal(instanceEntropy(instance(1, {}, "")), undefined);
  });

  it("parses only well-formed records", () => {
    assert.equal(parseRenderTime("1@nonsense", 1), undefined);
    assert.equal(parseRenderTime("12026-01-01T00:00:00Z", 1), undefined);
    assert.equal(parseRenderTime(7, 1), undefined);
    assert.equal(parseRenderTime("1@1970-01-01T00:00:01Z", 1), 1_000_000_000n);
  });
});

describe("renderTimeToRecord", () => {
  const graph = (template: string): CompiledGraph =>
    ({
      dialect: "template",
      nodes: [{ template, includeWhen: [], readyWhen: [], templateSource: { nameTemplate: "x" } }],
    }) as unknown as CompiledGraph;

  it("asks for a record only for graphs that read the clock, once per generation", () => {
    const clock = graph('a: {{ now | date "2006" }}');
    assert.equal(graphReadsClock(clock), true);
    assert.equal(renderTimeToRecord(clock, instance(4), "2026-12-01T05:00:00Z"), "4@2026-12-01T05:00:00Z");
    assert.equal(
      renderTimeToRecord(
        clock,
        instance(4, { [ANNOTATIONS.renderTime]: "4@2026-11-01T00:00:00Z" }),
        "2026-12-01T05:00:00Z",
      ),
      undefined,
    );
    assert.equal(
      renderTimeToRecord(
        clock,
        instance(5, { [ANNOTATIONS.renderTime]: "4@2026-11-01T00:00:00Z" }),
        "2026-12-01T05:00:00Z",
      ),
      "5@2026-12-01T05:00:00Z",
    );
    const noClock = graph("a: {{ randAlphaNum 5 }} {{ .parent.metadata.name }}");
    assert.equal(graphReadsClock(noClock), false);
    assert.equal(renderTimeToRecord(noClock, instance(4), "2026-12-01T05:00:00Z"), undefined);
    assert.equal(graphReadsClock({ dialect: "cel", nodes: [] } as unknown as CompiledGraph), false);
  });
});
