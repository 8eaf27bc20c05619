/**
 * What a chart template renders, found two ways and united: statically (top-level `kind:` lines
 * with their `apiVersion:`, hook annotations) so kinds behind a disabled `if` are known, and from
 * a render with the example values, which settles templated apiVersions.
 */
import type { HelmImportWarning } from "./types.js";

export interface TemplateKind {
  readonly apiVersion: string;
  readonly kind: string;
}

export type HookPhase = "pre" | "post" | "test" | "unsupported";

/** apiVersions of common kinds, for a literal `kind:` whose apiVersion is templated and did not render. */
const KNOWN_API_VERSIONS: Readonly<Record<string, string>> = {
  Deployment: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  ReplicaSet: "apps/v1",
  Service: "v1",
  ConfigMap: "v1",
  Secret: "v1",
  ServiceAccount: "v1",
  PersistentVolumeClaim: "v1",
  Pod: "v1",
  Namespace: "v1",
  Ingress: "networking.k8s.io/v1",
  NetworkPolicy: "networking.k8s.io/v1",
  IngressClass: "networking.k8s.io/v1",
  HorizontalPodAutoscaler: "autoscaling/v2",
  PodDisruptionBudget: "policy/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
  Role: "rbac.authorization.k8s.io/v1",
  RoleBinding: "rbac.authorization.k8s.io/v1",
  ClusterRole: "rbac.authorization.k8s.io/v1",
  ClusterRoleBinding: "rbac.authorization.k8s.io/v1",
};

const KIND_LINE = /^kind:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)["']?[ \t]*(#.*)?$/;
const API_LINE = /^apiVersion:[ \t]*["']?([a-z0-9./-]+)["']?[ \t]*(#.*)?$/;
const HOOK_LINE = /["']?helm\.sh\/hook["']?[ \t]*:[ \t]*(.*)$/;

/**
 * Literal top-level kinds of a template, each with its document's literal apiVersion. A document
 * may switch its kind with if/else (`StatefulSet` or `Deployment`): every `kind:` line counts, each
 * with the nearest `apiVersion:` line before it (or, for a kind written first, after it).
 */
export function staticKinds(text: string, file: string, warnings: HelmImportWarning[]): TemplateKind[] {
  const out: TemplateKind[] = [];
  let apis: { version: string; line: number }[] = [];
  let kinds: { kind: string; line: number }[] = [];
  const flush = () => {
    for (const { kind, line } of kinds) {
      const version =
        [...apis].reverse().find((a) => a.line < line)?.version ??
        apis.find((a) => a.line > line)?.version ??
        KNOWN_API_VERSIONS[kind];
      if (version === undefined)
        warnings.push({
          file,
          line,
          message: `kind ${kind} has a templated apiVersion that did not render with the chart's values; add its child by hand if other values render it`,
        });
      else if (!out.some((k) => k.kind === kind && k.apiVersion === version)) out.push({ apiVersion: version, kind });
    }
    apis = [];
    kinds = [];
  };
  text.split("\n").forEach((line, i) => {
    if (/^---/.test(line)) {
      flush();
      return;
    }
    const api = API_LINE.exec(line);
    if (api?.[1]) apis.push({ version: api[1], line: i + 1 });
    const kind = KIND_LINE.exec(line);
    if (kind?.[1]) kinds.push({ kind: kind[1], line: i + 1 });
  });
  flush();
  return out;
}

export interface TemplateHook {
  readonly phase: HookPhase;
  readonly hooks: readonly string[];
  readonly line: number;
}

/** The phase of a `helm.sh/hook` annotation's value (`pre-install,pre-upgrade`). */
export function hookPhase(value: string, line: number): TemplateHook {
  const hooks = value
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  let phase: HookPhase = "unsupported";
  if (hooks.length > 0 && hooks.every((h) => h.startsWith("test"))) phase = "test";
  else if (hooks.some((h) => h === "pre-install" || h === "pre-upgrade")) phase = "pre";
  else if (hooks.some((h) => h === "post-install" || h === "post-upgrade")) phase = "post";
  return { phase, hooks, line };
}

/**
 * The hook a template declares (its first `helm.sh/hook` annotation), with its line; a templated
 * value (`"helm.sh/hook": {{ $hookType }}`) is returned as text, to be settled by a render.
 */
export function hookOf(text: string): TemplateHook | { readonly templated: string; readonly line: number } | undefined {
  for (const [i, line] of text.split("\n").entries()) {
    const match = HOOK_LINE.exec(line);
    if (match?.[1] === undefined) continue;
    const value = match[1].trim();
    // A quoted value ends at its quote (a flow map may follow); a plain one is letters, commas and dashes.
    const quoted = /^(["'])(.*?)\1/.exec(value);
    const plain = quoted === null && value.startsWith("{{") ? /^\{\{.*?\}\}/.exec(value)?.[0] : undefined;
    const hook = quoted?.[2] ?? plain ?? /^[a-z,\- ]*/.exec(value)?.[0] ?? "";
    if (hook.includes("{{")) return { templated: hook, line: i + 1 };
    return hookPhase(hook, i + 1);
  }
  return undefined;
}

/** Template calls kro-ts cannot honour the way Helm does, with their lines. */
export function unsupportedCalls(text: string): { line: number; what: string }[] {
  const out: { line: number; what: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (/\blookup\b/.test(line) && line.includes("{{"))
      out.push({
        line: i + 1,
        what: "lookup reads the cluster in the controller, only literal kinds and only in the instance's namespace unless the RGD opts in (kro render: an empty map, as helm template)",
      });
    if (
      /\b(randAlphaNum|randAlpha|randNumeric|randAscii|uuidv4|genCA|genSelfSignedCert|genSignedCert|genPrivateKey|derivePassword|now)\b/.test(
        line,
      ) &&
      line.includes("{{")
    ) {
      out.push({
        line: i + 1,
        what: "a random or time-dependent function: rendered once per instance generation (as Helm renders once per upgrade), with other values than a Helm release has",
      });
    }
  });
  return out;
}
