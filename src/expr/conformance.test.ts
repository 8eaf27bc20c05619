// The official CEL conformance suite (@bufbuild/cel-spec) as a ratchet, per group.
// test/data/expr/conformance-baseline.json records, for every group, how many cases pass; and,
// for the groups kro enables, every case that does not pass with the reason. The test fails when
// a group's count drops, when a case of a kro group fails without being listed, and when a listed
// case starts passing (remove it from the list and raise the count in the same commit).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { runConformance, type CaseOutcome } from "../../test/unit-support/expr/conformance.js";

/**
 * The groups whose features kro v0.9's CEL environment has (kro pkg/cel/environment.go: the cel-go
 * standard library, cel.OptionalTypes, ext.Strings, ext.Lists, ext.Bindings, ext.Encoders,
 * ext.TwoVarComprehensions, plus Kubernetes' libraries, which the suite does not cover).
 * Not listed: ext.Math (math_ext) and cel.block (block_ext) are not enabled by kro; proto2, proto3,
 * proto2_ext, enums, wrappers, dynamic and type_deductions exercise protobuf message types, which
 * kro's environment never declares (its data is JSON); namespace needs a proto container.
 */
export const KRO_GROUPS: Readonly<Record<string, string>> = {
  basic: "standard library",
  bindings_ext: "ext.Bindings (cel.bind)",
  comparisons: "standard library",
  conversions: "standard library",
  encoders_ext: "ext.Encoders",
  fields: "standard library",
  fp_math: "standard library",
  integer_math: "standard library",
  lists: "standard library",
  logic: "standard library",
  macros: "standard library",
  macros2: "ext.TwoVarComprehensions",
  optionals: "cel.OptionalTypes",
  parse: "standard library (parser)",
  plumbing: "standard library",
  string: "standard library",
  string_ext: "ext.Strings",
  timestamps: "standard library",
};

interface Baseline {
  groups: Record<string, { passed: number; total: number }>;
  expectedFailures: { name: string; reason: string }[];
}

/** A case kro's environment can run (see outsideKro in the helpers: proto, unchecked, dotted names). */
const applicable = (c: CaseOutcome): boolean => c.outsideKro === undefined;

interface GroupCount {
  passed: number;
  total: number;
  applicable: number;
  passedApplicable: number;
}

function table(outcomes: readonly CaseOutcome[]): Map<string, GroupCount> {
  const groups = new Map<string, GroupCount>();
  for (const c of outcomes) {
    const g = groups.get(c.group) ?? { passed: 0, total: 0, applicable: 0, passedApplicable: 0 };
    g.total++;
    if (c.failure === undefined) g.passed++;
    if (applicable(c)) {
      g.applicable++;
      if (c.failure === undefined) g.passedApplicable++;
    }
    groups.set(c.group, g);
  }
  return groups;
}

const pct = (n: number, d: number): string => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);

describe("CEL conformance ratchet", () => {
  const baseline = JSON.parse(
    readFileSync(new URL("../../../test/data/expr/conformance-baseline.json", import.meta.url), "utf8"),
  ) as Baseline;
  const outcomes = runConformance();
  const groups = table(outcomes);

  it("prints the per-group table", () => {
    const lines = ["group            passed/total   cases kro can run   kro"];
    let passed = 0,
      total = 0;
    for (const [name, g] of groups) {
      passed += g.passed;
      total += g.total;
      lines.push(
        `${name.padEnd(16)} ${`${g.passed}/${g.total}`.padStart(9)}      ${`${g.passedApplicable}/${g.applicable}`.padStart(9)} ${pct(g.passedApplicable, g.applicable).padStart(6)}   ${name in KRO_GROUPS ? "yes" : ""}`,
      );
    }
    lines.push(`overall          ${`${passed}/${total}`.padStart(9)}`);
    console.log(lines.join("\n"));
    assert.ok(total > 0);
  });

  it("no group passes fewer cases than its baseline", () => {
    for (const [name, g] of groups) {
      const base = baseline.groups[name];
      assert.ok(base !== undefined, `group ${name} has no baseline: add it`);
      assert.equal(g.total, base.total, `group ${name} changed size: re-record its baseline`);
      assert.ok(g.passed >= base.passed, `group ${name}: ${g.passed} < baseline ${base.passed}`);
    }
    for (const name of Object.keys(baseline.groups))
      assert.ok(groups.has(name), `baseline group ${name} is gone from the suite`);
  });

  it("every case of a kro group that does not pass is an expected failure, with a reason", () => {
    const expected = new Set(baseline.expectedFailures.map((f) => f.name));
    const unexpected = outcomes.filter(
      (c) => c.group in KRO_GROUPS && c.failure !== undefined && !expected.has(c.name),
    );
    assert.deepEqual(
      unexpected.map((c) => `${c.name}: ${c.expr} → ${c.failure ?? ""}`),
      [],
    );
    for (const f of baseline.expectedFailures) assert.ok(f.reason.trim().length > 10, `${f.name}: give the reason`);
  });

  it("no expected failure passes (remove it from the list and raise the group's count)", () => {
    const byName = new Map(outcomes.map((c) => [c.name, c]));
    const missing = baseline.expectedFailures.filter((f) => !byName.has(f.name)).map((f) => f.name);
    assert.deepEqual(missing, [], "listed expected failures that are not in the suite");
    const passing = baseline.expectedFailures
      .filter((f) => byName.get(f.name)?.failure === undefined)
      .map((f) => f.name);
    assert.deepEqual(passing, []);
  });

  it("the baseline counts are exact (raise them when a group improves)", () => {
    const stale = [...groups]
      .filter(([name, g]) => (baseline.groups[name]?.passed ?? -1) < g.passed)
      .map(([name, g]) => `${name}: ${g.passed} passed, baseline ${baseline.groups[name]?.passed ?? "none"}`);
    assert.deepEqual(stale, []);
  });
});
