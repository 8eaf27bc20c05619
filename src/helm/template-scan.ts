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
  Deployment: "apps/v1", StatefulSet: "apps/v1", DaemonSet: "apps/v1", ReplicaSet: "apps/v1",
  Service: "v1", ConfigMap: "v1", Secret: "v1", ServiceAccount: "v1", PersistentVolumeClaim: "v1", Pod: "v1", Namespace: "v1",
  Ingress: "networking.k8s.io/v1", NetworkPolicy: "networking.k8s.io/v1", IngressClass: "networking.k8s.io/v1",
  HorizontalPodAutoscaler: "autoscaling/v2", PodDisruptionBudget: "policy/v1", Job: "batch/v1", CronJob: "batch/v1",
  Role: "rbac.authorization.k8s.io/v1", RoleBinding: "rbac.authorization.k8s.io/v1",
  ClusterRole: "rbac.authorization.k8s.io/v1", ClusterRoleBinding: "rbac.authorization.k8s.io/v1",
};

const KIND_LINE = /^kind:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)["']?[ \t]*(#.*)?$/;
const API_LINE = /^apiVersion:[ \t]*["']?([a-z0-9./-]+)["']?[ \t]*(#.*)?$/;
const HOOK_LINE = /["']?helm\.sh\/hook["']?[ \t]*:[ \t]*["']?([a-z,\- ]+)["']?/;

/** Literal top-level kinds of a template, each with the apiVersion of its document when literal. */
export function staticKinds(text: string, file: string, warnings: HelmImportWarning[]): TemplateKind[] {
  const out: TemplateKind[] = [];
  const lines = text.split("\n");
  let apiVersion: string | undefined;
  let pendingKind: { kind: string; line: number } | undefined;
  const flush = () => {
    if (pendingKind === undefined) return;
    const version = apiVersion ?? KNOWN_API_VERSIONS[pendingKind.kind];
    if (version === undefined) warnings.push({ file, line: pendingKind.line, message: `kind ${pendingKind.kind} has a templated apiVersion that did not render with the chart's values; add its child by hand if other values render it` });
    else out.push({ apiVersion: version, kind: pendingKind.kind });
    pendingKind = undefined;
  };
  lines.forEach((line, i) => {
    if (/^---/.test(line)) {
      flush();
      apiVersion = undefined;
      return;
    }
    const api = API_LINE.exec(line);
    if (api) apiVersion = api[1];
    const kind = KIND_LINE.exec(line);
    if (kind?.[1]) pendingKind = { kind: kind[1], line: i + 1 };
  });
  flush();
  return out;
}

/** The hook phase a template declares (first `helm.sh/hook` annotation), with its line. */
export function hookOf(text: string): { phase: HookPhase; hooks: string[]; line: number } | undefined {
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    const match = HOOK_LINE.exec(line);
    if (!match?.[1]) continue;
    const hooks = match[1].split(",").map((h) => h.trim()).filter((h) => h !== "");
    let phase: HookPhase = "unsupported";
    if (hooks.length > 0 && hooks.every((h) => h.startsWith("test"))) phase = "test";
    else if (hooks.some((h) => h === "pre-install" || h === "pre-upgrade")) phase = "pre";
    else if (hooks.some((h) => h === "post-install" || h === "post-upgrade")) phase = "post";
    return { phase, hooks, line: i + 1 };
  }
  return undefined;
}

/** Template calls kro-ts cannot honour the way Helm does, with their lines. */
export function unsupportedCalls(text: string): { line: number; what: string }[] {
  const out: { line: number; what: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (/\blookup\b/.test(line) && line.includes("{{")) out.push({ line: i + 1, what: "lookup reads the cluster; kro-ts renders it as Helm's offline template does (an empty map)" });
    if (/\b(randAlphaNum|randAlpha|randNumeric|randAscii|uuidv4|genCA|genSelfSignedCert|genSignedCert|genPrivateKey|derivePassword|now)\b/.test(line) && line.includes("{{")) {
      out.push({ line: i + 1, what: "a random or time-dependent function: rendered once per instance generation (as Helm renders once per upgrade), with other values than a Helm release has" });
    }
  });
  return out;
}
