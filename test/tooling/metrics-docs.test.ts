// Every metric the controller exports is documented in docs/metrics.md, and the Grafana
// dashboard (deploy/grafana/kro-ts-dashboard.json) queries only metrics that exist — so a new
// metric cannot ship undocumented and a renamed one cannot leave a dashboard panel empty.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ControllerMetrics } from "../../src/observability/index.js";

const root = new URL("../../../", import.meta.url);
const docs = readFileSync(fileURLToPath(new URL("docs/metrics.md", root)), "utf8");
const dashboard = JSON.parse(
  readFileSync(fileURLToPath(new URL("deploy/grafana/kro-ts-dashboard.json", root)), "utf8"),
) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

async function exported(): Promise<Map<string, string>> {
  const metrics = await new ControllerMetrics().registry.getMetricsAsJSON();
  return new Map(metrics.map((m) => [m.name, String(m.type)]));
}

describe("metrics documentation and dashboard", () => {
  it("documents every kro metric in a table row with its type, following Prometheus naming", async () => {
    for (const [name, type] of await exported()) {
      if (/^kro_(process|nodejs)_/.test(name)) continue; // prom-client's defaults, documented as a set
      const row = new RegExp(`^\\| \`${name}\` \\| ${type} \\| `, "m");
      assert.match(docs, row, `${name} (${type}) has no row in docs/metrics.md`);
      if (type === "counter") assert.match(name, /_total$/, `counter ${name} must end in _total`);
      if (type === "histogram") assert.match(name, /_(seconds|bytes)$/, `histogram ${name} must carry its base unit`);
    }
  });

  it("the dashboard's queries use only exported metrics, and every kro metric has a panel", async () => {
    const names = await exported();
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      assert.ok(panel.targets.length > 0, `panel ${panel.title} has no query`);
      for (const target of panel.targets) {
        for (const [metric] of target.expr.matchAll(/\bkro_[a-z0-9_]+/g)) {
          const base = metric.replace(/_(bucket|sum|count)$/, "");
          assert.ok(
            names.has(base) || names.has(metric),
            `panel "${panel.title}" queries ${metric}, which the controller does not export`,
          );
          queried.add(base);
        }
      }
    }
    for (const name of names.keys()) {
      if (!/^kro_(process|nodejs)_/.test(name)) assert.ok(queried.has(name), `no dashboard panel shows ${name}`);
    }
  });
});
