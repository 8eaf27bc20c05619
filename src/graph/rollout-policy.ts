/**
 * `spec.rollout` read into a RolloutPolicy, every mistake an issue at its path (docs/design/rollouts.md).
 * An invalid policy makes the RGD invalid rather than "no policy": read as absent, it would send a
 * change to every instance at once — the one thing its author asked us not to do. The API server
 * refuses most of these shapes already (api/rgd-crd.ts); this says why, at the line, offline too.
 * `healthyWhen` expressions are type-checked by the caller, which knows the instance's schema.
 */
import { DURATION_PATTERN } from "../api/index.js";
import type { JSONSchemaProps } from "../schema/index.js";
import { error, type Issue, type IssuePath } from "../diag/index.js";
import { extractExpressions } from "../expr/index.js";
import { isRecord } from "./is-record.js";

export interface LabelRequirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values?: readonly string[];
}

/** Which instances a wave takes. `rest`: every instance no earlier wave took. */
export type WaveSelection =
  | {
      readonly kind: "selector";
      readonly matchLabels: Readonly<Record<string, string>>;
      readonly matchExpressions: readonly LabelRequirement[];
    }
  | { readonly kind: "namespaces"; readonly namespaces: readonly string[] }
  /** Instances with a child placed in one of these member clusters (as their inventory records). */
  | { readonly kind: "clusters"; readonly clusters: readonly string[] }
  /** Cumulative: the wave ends when this share of all instances runs the target. */
  | { readonly kind: "percent"; readonly percent: number }
  | { readonly kind: "rest" };

export interface RolloutWave {
  readonly name: string;
  readonly selection: WaveSelection;
}

/** Instances moved and not yet healthy, at once: a count, or a share of all instances. */
export type MaxUpdating = { readonly count: number } | { readonly percent: number };

export interface RolloutPolicy {
  readonly waves: readonly RolloutWave[];
  readonly maxUpdating: MaxUpdating;
  readonly readyWithinMs: number;
  /** Standalone `${…}` CEL texts over the instance (`schema`), all must be true. */
  readonly healthyWhen: readonly string[];
  readonly pauseBetweenWavesMs: number;
  readonly onFailure: "Halt" | "Rollback";
  /** How far below the target a pin may be; 0 allows none. */
  readonly maxRevisionsBack: number;
}

/** Deployments' default for maxUnavailable: a policy that names no cap still moves a quarter at a time. */
export const DEFAULT_MAX_UPDATING: MaxUpdating = { percent: 25 };
export const DEFAULT_READY_WITHIN_MS = 10 * 60_000;

/** `status.graphRevision` of an instance under a rollout, as its generated CRD declares it. */
export const REVISION_STATUS_SCHEMA: JSONSchemaProps = {
  type: "object",
  description:
    "kro-ts: the GraphRevision this instance runs under its RGD's spec.rollout (docs/design/rollouts.md). Written by the controller; do not edit.",
  properties: {
    assigned: { type: "integer", format: "int64" },
    assignedAt: { type: "string", format: "date-time" },
    evaluated: { type: "integer", format: "int64" },
    healthyAt: { type: "string", format: "date-time" },
    unhealthy: { type: "string" },
    pinProblem: {
      type: "string",
      description:
        "Why the kro.run/pin-graph-revision annotation is not honoured (absent when it is, or when there is none).",
    },
  },
};

const ROLLOUT_PATH: IssuePath = ["spec", "rollout"];
const CODE = "rgd.rollout";
const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);
const WAVE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DURATION = new RegExp(DURATION_PATTERN);
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration ("1h30m", "90s") in milliseconds, or undefined when it is not one. */
export function parseRolloutDuration(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount = "0", , unit = "s"] of text.matchAll(/([0-9]+(\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(amount) * (UNIT_MS[unit] ?? 0);
  return total;
}

/** Checks a `healthyWhen` expression's CEL (source without `${}`) and returns its issues at `path`. */
export type HealthCheckTyper = (expression: string, path: IssuePath) => readonly Issue[];

export interface CompiledRolloutPolicy {
  readonly policy?: RolloutPolicy;
  readonly issues: readonly Issue[];
}

export function compileRolloutPolicy(value: unknown, typeCheck?: HealthCheckTyper): CompiledRolloutPolicy {
  if (value === undefined) return { issues: [] };
  const issues: Issue[] = [];
  if (!isRecord(value))
    return { issues: [error(CODE, ROLLOUT_PATH, "spec.rollout must be an object (waves, maxUpdating, gate, …)")] };
  issues.push(
    ...unknownKeys(value, ["waves", "maxUpdating", "gate", "pauseBetweenWaves", "onFailure", "pinning"], ROLLOUT_PATH),
  );
  const waves = readWaves(value.waves, issues);
  const maxUpdating = readMaxUpdating(value.maxUpdating, issues);
  const gate = readGate(value.gate, issues, typeCheck);
  const pause =
    value.pauseBetweenWaves === undefined
      ? 0
      : readDuration(value.pauseBetweenWaves, "pauseBetweenWaves", issues, true);
  const onFailure = readOnFailure(value.onFailure, issues);
  const maxRevisionsBack = readPinning(value.pinning, issues);
  if (issues.some((i) => i.severity === "error")) return { issues };
  return {
    policy: {
      waves,
      maxUpdating,
      readyWithinMs: gate.readyWithinMs,
      healthyWhen: gate.healthyWhen,
      pauseBetweenWavesMs: pause ?? 0,
      onFailure,
      maxRevisionsBack,
    },
    issues,
  };
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], path: IssuePath): Issue[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) =>
      error(
        CODE,
        [...path, key],
        `unknown field "${key}" (${path.join(".")} has ${known.join(", ")}); the API server refuses it`,
      ),
    );
}

function readWaves(value: unknown, issues: Issue[]): RolloutWave[] {
  const path = [...ROLLOUT_PATH, "waves"];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    issues.push(
      error(CODE, path, "waves must be a list of waves (name, and selector, namespaces, clusters or percent)"),
    );
    return [];
  }
  const waves: RolloutWave[] = [];
  const seen = new Map<string, number>();
  let lastPercent: { percent: number; index: number } | undefined;
  value.forEach((entry: unknown, index) => {
    const at = [...path, index];
    if (!isRecord(entry)) {
      issues.push(error(CODE, at, "a wave must be an object with a name"));
      return;
    }
    issues.push(...unknownKeys(entry, ["name", "selector", "namespaces", "clusters", "percent"], at));
    const name = entry.name;
    if (typeof name !== "string" || !WAVE_NAME.test(name) || name.length > 63) {
      issues.push(
        error(
          CODE,
          [...at, "name"],
          `a wave needs a name of lower-case letters, digits and dashes, got ${JSON.stringify(name)}`,
        ),
      );
      return;
    }
    const first = seen.get(name);
    if (first !== undefined) issues.push(error(CODE, [...at, "name"], `wave "${name}" is already waves[${first}]`));
    seen.set(name, index);
    const chosen = (["selector", "namespaces", "clusters", "percent"] as const).filter((k) => entry[k] !== undefined);
    if (chosen.length > 1) {
      issues.push(
        error(
          CODE,
          at,
          `wave "${name}" has ${chosen.join(" and ")}: a wave takes instances by one of selector, namespaces, clusters and percent`,
        ),
      );
      return;
    }
    const previous = waves.at(-1);
    if (previous?.selection.kind === "rest")
      issues.push(
        error(
          CODE,
          at,
          `wave "${name}" comes after wave "${previous.name}", which takes every instance left: it would never have any`,
        ),
      );
    const selection = readSelection(entry, chosen[0], at, issues);
    if (selection === undefined) return;
    if (selection.kind === "percent") {
      if (lastPercent !== undefined && selection.percent <= lastPercent.percent)
        issues.push(
          error(
            CODE,
            [...at, "percent"],
            `percent is cumulative: wave "${name}" (${selection.percent} %) must be above waves[${lastPercent.index}] (${lastPercent.percent} %)`,
          ),
        );
      lastPercent = { percent: selection.percent, index };
    }
    waves.push({ name, selection });
  });
  return waves;
}

function readSelection(
  entry: Record<string, unknown>,
  kind: "selector" | "namespaces" | "clusters" | "percent" | undefined,
  at: IssuePath,
  issues: Issue[],
): WaveSelection | undefined {
  if (kind === undefined) return { kind: "rest" };
  if (kind === "percent") {
    const percent = entry.percent;
    if (typeof percent !== "number" || !Number.isInteger(percent) || percent < 1 || percent > 100) {
      issues.push(
        error(CODE, [...at, "percent"], `percent must be a whole number from 1 to 100, got ${JSON.stringify(percent)}`),
      );
      return undefined;
    }
    return { kind, percent };
  }
  if (kind === "namespaces") {
    const namespaces = entry.namespaces;
    if (
      !Array.isArray(namespaces) ||
      namespaces.length === 0 ||
      !namespaces.every((n) => typeof n === "string" && n !== "")
    ) {
      issues.push(error(CODE, [...at, "namespaces"], "namespaces must be a non-empty list of namespace names"));
      return undefined;
    }
    return { kind, namespaces: namespaces as string[] };
  }
  if (kind === "clusters") {
    const clusters = entry.clusters;
    if (
      !Array.isArray(clusters) ||
      clusters.length === 0 ||
      !clusters.every((c) => typeof c === "string" && c !== "")
    ) {
      issues.push(error(CODE, [...at, "clusters"], "clusters must be a non-empty list of registered cluster names"));
      return undefined;
    }
    return { kind, clusters: clusters as string[] };
  }
  return readSelector(entry.selector, [...at, "selector"], issues);
}

function readSelector(value: unknown, path: IssuePath, issues: Issue[]): WaveSelection | undefined {
  if (!isRecord(value)) {
    issues.push(error(CODE, path, "selector must be an object with matchLabels and/or matchExpressions"));
    return undefined;
  }
  const before = issues.length;
  issues.push(...unknownKeys(value, ["matchLabels", "matchExpressions"], path));
  const labels = value.matchLabels ?? {};
  if (!isRecord(labels) || !Object.values(labels).every((v) => typeof v === "string"))
    issues.push(error(CODE, [...path, "matchLabels"], "matchLabels must map label keys to string values"));
  const expressions = value.matchExpressions ?? [];
  const requirements: LabelRequirement[] = [];
  if (!Array.isArray(expressions))
    issues.push(error(CODE, [...path, "matchExpressions"], "matchExpressions must be a list"));
  else
    expressions.forEach((e: unknown, index) => {
      const at = [...path, "matchExpressions", index];
      const requirement = readRequirement(e, at, issues);
      if (requirement !== undefined) requirements.push(requirement);
    });
  if (issues.length > before) return undefined;
  if (Object.keys(labels).length === 0 && requirements.length === 0) {
    issues.push(
      error(CODE, path, "an empty selector takes every instance; leave selector out for a wave of every instance left"),
    );
    return undefined;
  }
  return { kind: "selector", matchLabels: labels as Record<string, string>, matchExpressions: requirements };
}

function readRequirement(value: unknown, at: IssuePath, issues: Issue[]): LabelRequirement | undefined {
  if (!isRecord(value) || typeof value.key !== "string" || value.key === "") {
    issues.push(error(CODE, at, "a requirement needs a key and an operator (In, NotIn, Exists, DoesNotExist)"));
    return undefined;
  }
  const operator = value.operator;
  if (typeof operator !== "string" || !OPERATORS.has(operator)) {
    issues.push(
      error(
        CODE,
        [...at, "operator"],
        `operator must be In, NotIn, Exists or DoesNotExist, got ${JSON.stringify(operator)}`,
      ),
    );
    return undefined;
  }
  const values = value.values ?? [];
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
    issues.push(error(CODE, [...at, "values"], "values must be a list of strings"));
    return undefined;
  }
  const needsValues = operator === "In" || operator === "NotIn";
  if (needsValues !== values.length > 0) {
    issues.push(
      error(
        CODE,
        [...at, "values"],
        needsValues ? `${operator} needs at least one value` : `${operator} takes no values`,
      ),
    );
    return undefined;
  }
  return {
    key: value.key,
    operator: operator as LabelRequirement["operator"],
    ...(needsValues ? { values } : {}),
  };
}

function readMaxUpdating(value: unknown, issues: Issue[]): MaxUpdating {
  const path = [...ROLLOUT_PATH, "maxUpdating"];
  if (value === undefined) return DEFAULT_MAX_UPDATING;
  if (typeof value === "number" && Number.isInteger(value) && value >= 1) return { count: value };
  const percent = typeof value === "string" ? /^([0-9]+)%$/.exec(value) : null;
  const share = Number(percent?.[1]);
  if (percent !== null && share >= 1 && share <= 100) return { percent: share };
  issues.push(
    error(
      CODE,
      path,
      `maxUpdating must be a whole number of at least 1 or a percentage from 1% to 100%, got ${JSON.stringify(value)}`,
    ),
  );
  return DEFAULT_MAX_UPDATING;
}

function readDuration(
  value: unknown,
  name: string,
  issues: Issue[],
  zeroAllowed: boolean,
  path?: IssuePath,
): number | undefined {
  const at = path ?? [...ROLLOUT_PATH, name];
  const ms = typeof value === "string" ? parseRolloutDuration(value) : undefined;
  if (ms === undefined || (!zeroAllowed && ms <= 0)) {
    issues.push(
      error(
        CODE,
        at,
        `${name} must be a${zeroAllowed ? "" : " positive"} duration such as 90s, 10m or 1h30m, got ${JSON.stringify(value)}`,
      ),
    );
    return undefined;
  }
  return ms;
}

function readGate(
  value: unknown,
  issues: Issue[],
  typeCheck: HealthCheckTyper | undefined,
): { readyWithinMs: number; healthyWhen: string[] } {
  const path = [...ROLLOUT_PATH, "gate"];
  const fallback = { readyWithinMs: DEFAULT_READY_WITHIN_MS, healthyWhen: [] };
  if (value === undefined) return fallback;
  if (!isRecord(value)) {
    issues.push(error(CODE, path, "gate must be an object (readyWithin, healthyWhen)"));
    return fallback;
  }
  issues.push(...unknownKeys(value, ["readyWithin", "healthyWhen"], path));
  const readyWithinMs =
    value.readyWithin === undefined
      ? DEFAULT_READY_WITHIN_MS
      : (readDuration(value.readyWithin, "readyWithin", issues, false, [...path, "readyWithin"]) ??
        DEFAULT_READY_WITHIN_MS);
  const healthyWhen: string[] = [];
  const list = value.healthyWhen ?? [];
  if (!Array.isArray(list)) {
    issues.push(error(CODE, [...path, "healthyWhen"], 'healthyWhen must be a list of "${...}" expressions'));
    return { readyWithinMs, healthyWhen };
  }
  list.forEach((entry: unknown, index) => {
    const at = [...path, "healthyWhen", index];
    const found = typeof entry === "string" ? extractExpressions(entry) : undefined;
    const [segment] = found?.segments ?? [];
    if (found === undefined || !found.standalone || segment?.kind !== "expression") {
      issues.push(
        error(CODE, at, `healthyWhen entries must be a single "\${...}" expression, got ${JSON.stringify(entry)}`),
      );
      return;
    }
    issues.push(...(typeCheck?.(segment.source, at) ?? []));
    healthyWhen.push(entry as string);
  });
  return { readyWithinMs, healthyWhen };
}

function readOnFailure(value: unknown, issues: Issue[]): "Halt" | "Rollback" {
  if (value === undefined || value === "Halt" || value === "Rollback") return value ?? "Halt";
  issues.push(
    error(CODE, [...ROLLOUT_PATH, "onFailure"], `onFailure must be Halt or Rollback, got ${JSON.stringify(value)}`),
  );
  return "Halt";
}

function readPinning(value: unknown, issues: Issue[]): number {
  const path = [...ROLLOUT_PATH, "pinning"];
  if (value === undefined) return 0;
  if (!isRecord(value)) {
    issues.push(error(CODE, path, "pinning must be an object (maxRevisionsBack)"));
    return 0;
  }
  issues.push(...unknownKeys(value, ["maxRevisionsBack"], path));
  const back = value.maxRevisionsBack ?? 0;
  if (typeof back === "number" && Number.isInteger(back) && back >= 0 && back <= 100) return back;
  issues.push(
    error(
      CODE,
      [...path, "maxRevisionsBack"],
      `maxRevisionsBack must be a whole number from 0 to 100, got ${JSON.stringify(back)}`,
    ),
  );
  return 0;
}
