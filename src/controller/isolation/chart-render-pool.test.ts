// The chart-render pool with real worker threads: answers equal the inline render, lookups
// reach the main thread, and a render that runs its thread out of memory or past its time ends
// as an error for that render while this process (the controller) carries on.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { HelmContext } from "../../graph/index.js";
import { parseChartOutput, renderChartOutputs, type KubeJson } from "../../runtime/index.js";
import { ChartRenderPool } from "./chart-render-pool.js";
import { ChartRenders } from "./chart-renders.js";

const chart = (text: string): HelmContext => ({
  templates: { "c/templates/a.yaml": text },
  charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { Name: "c", Version: "0.1.0" }, files: {} }],
  apiVersions: [],
});
const instance = (spec: Record<string, unknown>, uid = "u-1"): KubeJson => ({
  apiVersion: "x.kro.run/v1",
  kind: "App",
  metadata: { name: "a", namespace: "ns", uid, generation: 1, creationTimestamp: "2026-01-01T00:00:00Z" },
  spec,
});

describe("chart render pool", () => {
  // Generous for a thread's cold start on a loaded machine; `strict` (warmed first) tests the time limit.
  const pool = new ChartRenderPool({ threads: 1, heapMb: 64, timeoutMs: 60_000 });
  // Far below the CPU the work budget allows for bcrypt (20 hashes, 1.7 s here): a limit near it
  // raced the two, and on a quiet machine the budget answered first.
  const strict = new ChartRenderPool({ threads: 1, heapMb: 64, timeoutMs: 300 });
  after(() => Promise.all([pool.stop(), strict.stop()]));

  it("renders what the runtime renders inline (seeded entropy included)", async () => {
    const context = chart("kind: ConfigMap\nname: {{ .Release.Name }}-{{ .Values.n }}\nkey: {{ randAlphaNum 8 }}\n");
    const answer = await pool.render({ context, instance: instance({ n: 3 }) });
    const inline = renderChartOutputs(context, instance({ n: 3 }));
    assert.ok(answer.ok && inline.ok);
    assert.deepEqual([...answer.outputs], [...inline.value]);
    // Parsed in the worker, as the runtime would parse each output.
    assert.deepEqual(
      [...(answer.documents ?? [])],
      [...inline.value].map(([template, text]) => [template, parseChartOutput(template, text)]),
    );
  });

  it("answers lookup from the main thread, and records what it read", async () => {
    const context = chart('{{ (lookup "v1" "ConfigMap" "ns" "cm").data.k }}');
    const seen: string[] = [];
    const lookup = (...args: string[]): KubeJson => {
      seen.push(args.join("/"));
      return { metadata: { uid: "cm-1", resourceVersion: "7" }, data: { k: "from-main" } };
    };
    const answer = await pool.render({ context, instance: instance({}), lookup });
    assert.ok(answer.ok);
    assert.equal(answer.outputs.get("c/templates/a.yaml"), "from-main");
    assert.deepEqual(seen, ["v1/ConfigMap/ns/cm"]);
    assert.deepEqual(answer.calls, [{ args: ["v1", "ConfigMap", "ns", "cm"], fingerprint: "cm-1@7" }]);
  });

  it("a template error says which template failed, not only the helper file it was raised in", async () => {
    const context: HelmContext = {
      ...chart("ok: 1\n"),
      templates: {
        "c/templates/_h.tpl": '{{ define "need" }}{{ required "n is required" .Values.n }}{{ end }}',
        "c/templates/a.yaml": "ok: 1\n",
        "c/templates/b.yaml": 'n: {{ include "need" . }}\n',
      },
    };
    const answer = await pool.render({ context, instance: instance({}) });
    assert.ok(!answer.ok);
    assert.match(answer.error, /\(c\/templates\/_h\.tpl:1\).*n is required/);
    assert.equal(answer.failedTemplate, "c/templates/b.yaml");
  });

  it("stop() ends every thread, so the controller's process can exit", async () => {
    const wide = new ChartRenderPool({ threads: 3, heapMb: 64, timeoutMs: 60_000 });
    const slow = chart("{{ range until 20000 }}{{ end }}x");
    const answers = await Promise.all([1, 2, 3].map(() => wide.render({ context: slow, instance: instance({}) })));
    assert.ok(answers.every((a) => a.ok));
    assert.equal(wide.workerThreadIds.length, 3);
    await wide.stop();
    assert.deepEqual(wide.workerThreadIds, [], "no thread left behind");
  });

  it("a render that runs its thread out of memory is an error naming the limit; the next render gets a fresh thread", async () => {
    const roomy = new ChartRenderPool({ threads: 1, heapMb: 64, timeoutMs: 60_000 });
    after(() => roomy.stop());
    const before = roomy.workerThreadIds;
    // Within the work budget (charged 4 units per element) but far beyond a 64 MiB heap.
    const answer = await roomy.render({
      context: chart(
        "{{ $all := list }}{{ range until 40 }}{{ $all = append $all (until 60000) }}{{ end }}{{ len $all }}",
      ),
      instance: instance({}),
    });
    assert.equal(answer.ok, false);
    assert.equal(answer.limit, "memory");
    assert.match(answer.error, /exceeded the memory limit of 64 MiB/);
    const next = await roomy.render({ context: chart("ok"), instance: instance({}) });
    assert.ok(next.ok);
    assert.notDeepEqual(roomy.workerThreadIds, before);
  });

  it("a render past its time limit is stopped with an error naming the limit", async () => {
    await strict.render({ context: chart("warm"), instance: instance({}) });
    const answer = await strict.render({
      context: chart('{{ range until 100 }}{{ bcrypt "x" }}{{ end }}'),
      instance: instance({}),
    });
    assert.equal(answer.ok, false);
    assert.equal(answer.limit, "time");
    assert.match(answer.error, /time limit of 300 ms/);
    assert.ok(strict.stops.time >= 1);
  });

  it("time waiting is not work: a render blocked longer than its limit on a slow lookup answer still completes", async () => {
    const blocked = new ChartRenderPool({ threads: 1, heapMb: 64, timeoutMs: 300 });
    after(() => blocked.stop());
    await blocked.render({ context: chart("warm"), instance: instance({}) });
    // The main thread holds its answer for 0.9 s (the worker sleeps meanwhile): three times the
    // render's limit in wall time, a few milliseconds of the worker's own work. (Within the outer
    // stop's grace: that one's CPU reading was seen to stop a render under the full suite's load
    // and is not asserted here.)
    const lookup = (): KubeJson => {
      const until = performance.now() + 900;
      while (performance.now() < until);
      return { metadata: { uid: "cm-1", resourceVersion: "1" }, data: { k: "slow" } };
    };
    const answer = await blocked.render({
      context: chart('{{ (lookup "v1" "ConfigMap" "ns" "cm").data.k }}'),
      instance: instance({}),
      lookup,
    });
    assert.ok(answer.ok, answer.ok ? "" : answer.error);
    assert.equal(answer.outputs.get("c/templates/a.yaml"), "slow");
    assert.equal(blocked.stops.time, 0);
  });

  it("a chart's own budget error is an answer, kept until the instance changes; pool stops back off", async () => {
    let now = 0;
    const renders = new ChartRenders(strict, () => now);
    let woken = 0;
    const port = renders.port(() => {
      woken++;
    });
    const context = chart("{{ len (until (int .Values.n)) }}");
    const request = { helm: context, instance: instance({ n: 100000000 }) };
    assert.equal(port(request), undefined, "first pass: rendering");
    while (woken === 0) await new Promise((r) => setTimeout(r, 10));
    const answer = port(request);
    assert.ok(answer !== undefined && !answer.ok);
    assert.match(
      answer.error,
      /error calling until: a list of 100000000 elements exceeds the render's work budget \(10000000 steps\)/,
    );
    // The controller's own writes (status, resourceVersion) do not render again.
    assert.equal(
      port({
        ...request,
        instance: {
          ...request.instance,
          status: { state: "ERROR" },
          metadata: { ...(request.instance.metadata as object), resourceVersion: "9" },
        },
      }),
      answer,
    );
    // A spec change does.
    assert.equal(port({ helm: context, instance: instance({ n: 3 }) }), undefined);
    // A render the pool stopped is retried only after its backoff.
    const slow = { helm: chart('{{ range until 100 }}{{ bcrypt "x" }}{{ end }}'), instance: instance({}) };
    woken = 0;
    assert.equal(port(slow), undefined);
    while (woken < 2) await new Promise((r) => setTimeout(r, 20));
    const stopped = port(slow);
    assert.ok(stopped !== undefined && !stopped.ok);
    now += 31_000;
    assert.equal(port(slow), undefined, "retried after 30 s");
  });
});
