import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importHelmChart } from "./import-chart.js";
import type { ChartFiles } from "./types.js";

const enc = new TextEncoder();
const chart = (files: Record<string, string>): ChartFiles =>
  new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)]));
const deps = (list: string) => `apiVersion: v2\nname: top\nversion: 0.1.0\ndependencies:\n${list}`;
const SUB = {
  "charts/db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
  "charts/db/values.yaml": "exports:\n  conn: {host: db, port: 5432}\nsettings:\n  pool: {max: 10}\n",
  "charts/db/templates/x.yaml": "",
};
const spec = (files: Record<string, string>, values: object[] = []) => {
  const result = importHelmChart(chart(files), { values });
  return { spec: result.instance.spec as Record<string, unknown>, warnings: result.warnings.map((w) => w.message) };
};

describe("dependency import-values (Helm's chartutil)", () => {
  it("a name imports the child's exports.<name> at the parent's root; the parent's own values win", () => {
    const { spec: values } = spec({
      ...SUB,
      "Chart.yaml": deps("  - name: db\n    version: 0.1.0\n    import-values: [conn]\n"),
      "values.yaml": "port: 1\n",
    });
    assert.equal(values.host, "db");
    assert.equal(values.port, 1);
  });
  it("child/parent places the child's table at a dotted path ('.' is the root)", () => {
    const { spec: values } = spec({
      ...SUB,
      "Chart.yaml": deps(
        "  - name: db\n    version: 0.1.0\n    import-values:\n      - {child: settings.pool, parent: a.b}\n      - {child: settings, parent: .}\n",
      ),
    });
    assert.deepEqual(values.a, { b: { max: 10 } });
    assert.deepEqual(values.pool, { max: 10 });
  });
  it("a missing table is skipped with a warning; a malformed rule is an error naming Chart.yaml", () => {
    const { warnings } = spec({
      ...SUB,
      "Chart.yaml": deps("  - name: db\n    version: 0.1.0\n    import-values: [nope]\n"),
    });
    assert.ok(
      warnings.some((w) => /import-values finds no table at exports\.nope/.test(w)),
      warnings.join("\n"),
    );
    assert.throws(
      () => spec({ ...SUB, "Chart.yaml": deps("  - name: db\n    version: 0.1.0\n    import-values: [{child: 1}]\n") }),
      /Chart\.yaml: dependency "db": import-values\[0\] must be a name or a map/,
    );
  });
  it("a disabled dependency imports nothing; enabled by the import's values it does (with a warning)", () => {
    const files = {
      ...SUB,
      "Chart.yaml": deps("  - name: db\n    version: 0.1.0\n    condition: db.enabled\n    import-values: [conn]\n"),
      "values.yaml": "db:\n  enabled: false\n",
    };
    assert.equal(spec(files).spec.host, undefined);
    const enabled = spec(files, [{ db: { enabled: true } }]);
    assert.equal(enabled.spec.host, "db");
    assert.ok(enabled.warnings.some((w) => /has import-values and a condition or tags/.test(w)));
  });
});
