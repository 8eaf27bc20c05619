/**
 * What a chart template renders, found two ways and united: statically (top-level `kind:` lines
 * with their `apiVersion:`, hook annotations) so kinds behind a disabled `if` are known, and from
 * a render with the example values; a templated apiVersion of a kind the values do not render is
 * settled by rendering its expression (template-api-versions.ts).
 */
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
/** `apiVersion: {{ include "common.capabilities.policy.apiVersion" . }}`, quoted or not. */
const TEMPLATED_API_LINE = /^apiVersion:[ \t]*(["']?\{\{.*\}\}["']?)[ \t]*(#.*)?$/;
const HOOK_LINE = /["']?helm\.sh\/hook["']?[ \t]*:[ \t]*(.*)$/;

/** A literal `kind:` whose apiVersion is not written out: to be rendered (template-api-versions.ts). */
export interface TemplatedKind {
  readonly kind: string;
  /** The apiVersion line's value (`{{ include "x.apiVersion" . }}`); absent when the document has no apiVersion line. */
  readonly expression?: string;
  /** The apiVersion line, or the kind line when there is none. */
  readonly line: number;
  /** What the kind is usually served as, for a kind Kubernetes itself serves. */
  readonly known?: string;
}

/**
 * Literal top-level kinds of a template, each with its document's apiVersion. A document may
 * switch its kind with if/else (`StatefulSet` or `Deployment`): every `kind:` line counts, each
 * with the nearest `apiVersion:` line before it (or, for a kind written first, after it). A kind
 * whose apiVersion line is templated is returned apart, with the expression to render.
 */
export function staticKinds(text: string): { kinds: TemplateKind[]; templated: TemplatedKind[] } {
  const kinds: TemplateKind[] = [];
  const templated: TemplatedKind[] = [];
  let apis: { version?: string; expression?: string; line: number }[] = [];
  let found: { kind: string; line: number }[] = [];
  const flush = () => {
    for (const { kind, line } of found) {
      const api = [...apis].reverse().find((a) => a.line < line) ?? apis.find((a) => a.line > line);
      const known = KNOWN_API_VERSIONS[kind];
      if (api?.version !== undefined) {
        if (!kinds.some((k) => k.kind === kind && k.apiVersion === api.version))
          kinds.push({ apiVersion: api.version, kind });
      } else if (!templated.some((t) => t.kind === kind && t.expression === api?.expression))
        templated.push({
          kind,
          line: api?.line ?? line,
          ...(api?.expression === undefined ? {} : { expression: api.expression }),
          ...(known === undefined ? {} : { known }),
        });
    }
    apis = [];
    found = [];
  };
  text.split("\n").forEach((line, i) => {
    if (/^---/.test(line)) {
      flush();
      return;
    }
    const api = API_LINE.exec(line);
    if (api?.[1]) apis.push({ version: api[1], line: i + 1 });
    const expression = TEMPLATED_API_LINE.exec(line)?.[1];
    if (expression !== undefined) apis.push({ expression, line: i + 1 });
    const kind = KIND_LINE.exec(line);
    if (kind?.[1]) found.push({ kind: kind[1], line: i + 1 });
  });
  flush();
  return { kinds, templated };
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
