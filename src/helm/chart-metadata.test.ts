import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "../api/index.js";
import { asChartMetadata } from "./chart-metadata.js";

const read = (text: string): Record<string, unknown> =>
  asChartMetadata(loadYaml("Chart.yaml", text).documents[0]?.value as Record<string, unknown>);

describe("Chart.yaml as Helm reads it into chart.Metadata's string fields", () => {
  it('a boolean or number in a string field becomes its Go text (name: off is "false", version: 1.10 is "1.1")', () => {
    const meta = read(
      "apiVersion: v2\nname: off\nversion: 1.10\nappVersion: 2\nkeywords: [yes, 3]\nannotations: {a: 0755}\ndependencies:\n  - {name: n, version: 1.2, tags: [on]}\nmaintainers:\n  - {name: y}\n",
    );
    assert.deepEqual(meta, {
      apiVersion: "v2",
      name: "false",
      version: "1.1",
      appVersion: "2",
      keywords: ["true", "3"],
      annotations: { a: "493" },
      dependencies: [{ name: "false", version: "1.2", tags: ["true"] }],
      maintainers: [{ name: "true" }],
    });
  });

  it("leaves strings and fields that are not strings in Go alone", () => {
    assert.deepEqual(
      read(
        'name: c\nversion: "1.10"\ndeprecated: true\ndependencies:\n  - {name: d, enabled: false, import-values: [x]}\n',
      ),
      {
        name: "c",
        version: "1.10",
        deprecated: true,
        dependencies: [{ name: "d", enabled: false, "import-values": ["x"] }],
      },
    );
  });
});
