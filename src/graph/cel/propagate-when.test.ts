// propagateWhen read at compile time: the supported forms become rules, everything else is an
// error at the entry's path; an RGD without the field compiles exactly as before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { formatPath } from "../../diag/index.js";
import { compileRgd } from "../compile.js";

const rgdText = (extra: string, forEach = true): string => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: regional
spec:
  schema:
    apiVersion: v1alpha1
    kind: Regional
    spec:
      regions: "[]string"
  resources:
    - id: regions
${forEach ? "      forEach:\n        - region: ${schema.spec.regions}\n" : ""}      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: ${forEach ? "cm-${region}" : "cm"}
${extra}`;

function compile(extra: string, forEach = true) {
  const [document] = loadYaml("regional.yaml", rgdText(extra, forEach)).documents;
  const result = compileRgd(document?.value);
  const errors = result.issues.filter((i) => i.severity === "error").map((i) => `${formatPath(i.path)}: ${i.message}`);
  return { graph: result.graph, errors };
}

describe("propagateWhen", () => {
  it("reads linearlyUpdated, exponentiallyUpdated and the readiness rule (spacing free)", () => {
    const { graph, errors } = compile(`      propagateWhen:
        - \${linearlyUpdated(region, regions, 2)}
        - "\${ regions.all(r, !r.updated() || r.ready()) }"
        - \${exponentiallyUpdated( region , regions )}
        - \${regions.all(x, x.ready() || !x.updated())}
`);
    assert.deepEqual(errors, []);
    const rules = graph?.nodes[0]?.propagateWhen ?? [];
    assert.deepEqual(
      rules.map((r) => r.kind),
      ["linear", "updatedReady", "exponential", "updatedReady"],
    );
    assert.deepEqual(rules[0], {
      kind: "linear",
      batch: 2,
      text: "linearlyUpdated(region, regions, 2)",
    });
  });

  it("leaves a graph without propagateWhen as it was", () => {
    const { graph, errors } = compile("");
    assert.deepEqual(errors, []);
    assert.equal("propagateWhen" in (graph?.nodes[0] ?? {}), false);
  });

  const refused: [string, string, RegExp][] = [
    [
      "arbitrary CEL",
      "${regions.filter(p, p.ready()).size() >= 2}",
      /is not a supported form; kro-ts supports linearlyUpdated/,
    ],
    [
      "another collection",
      "${linearlyUpdated(region, others, 2)}",
      /must name its own collection "regions", not "others"/,
    ],
    [
      "an unknown iterator",
      "${exponentiallyUpdated(zone, regions)}",
      /must name one of its forEach iterators \(region\), not "zone"/,
    ],
    ["a zero batch", "${linearlyUpdated(region, regions, 0)}", /batch must be at least 1, got 0/],
    ["a readiness rule over another list", "${others.all(r, !r.updated() || r.ready())}", /own collection/],
  ];
  for (const [what, expression, message] of refused) {
    it(`refuses ${what} at the entry's path`, () => {
      const { graph, errors } = compile(
        `      propagateWhen:\n        - ok: no\n        - "${expression}"\n`.replace("        - ok: no\n", ""),
      );
      assert.equal(graph, undefined);
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(
        errors[0] as string,
        /^spec\.resources\[0\]\.propagateWhen\[0\]: resource "regions": propagateWhen /,
      );
      assert.match(errors[0] as string, message);
    });
  }

  it("refuses propagateWhen on a resource without forEach", () => {
    const { errors } = compile("      propagateWhen:\n        - ${linearlyUpdated(region, regions, 1)}\n", false);
    assert.deepEqual(errors, [
      'spec.resources[0].propagateWhen: resource "regions": propagateWhen is supported on forEach collections only',
    ]);
  });

  it("refuses an entry that is not a single expression", () => {
    const { errors } = compile('      propagateWhen:\n        - "batch ${linearlyUpdated(region, regions, 1)}"\n');
    assert.equal(errors.length, 1);
    assert.match(
      errors[0] as string,
      /^spec\.resources\[0\]\.propagateWhen\[0\]: propagateWhen entries must be a single/,
    );
  });
});
