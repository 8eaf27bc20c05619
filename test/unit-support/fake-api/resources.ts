/**
 * The kinds the fake API serves and the paths it answers for them: built-in kinds of a plain
 * cluster, and kinds added at run time (a CRD the fake establishes, see
 * fake-cluster.ts). It also renders the aggregated discovery documents the real Discovery reads,
 * so the client's path building and discovery run unchanged against the fake.
 */
export interface FakeKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** With a status subresource, writes to the main resource leave status alone (and vice versa). */
  readonly status: boolean;
}

export const apiVersionOf = (k: Pick<FakeKind, "group" | "version">): string =>
  k.group === "" ? k.version : `${k.group}/${k.version}`;

const kind = (
  group: string,
  version: string,
  kindName: string,
  plural: string,
  namespaced: boolean,
  status: boolean,
): FakeKind => ({ group, version, kind: kindName, plural, namespaced, status });

/** What a fresh fake cluster serves (kro's own kinds come from their CRDs: see fake-controller.ts). */
export function builtinKinds(): FakeKind[] {
  return [
    kind("", "v1", "Namespace", "namespaces", false, true),
    kind("", "v1", "ConfigMap", "configmaps", true, false),
    kind("", "v1", "Secret", "secrets", true, false),
    kind("", "v1", "Service", "services", true, true),
    kind("", "v1", "ServiceAccount", "serviceaccounts", true, false),
    kind("", "v1", "Event", "events", true, false),
    kind("events.k8s.io", "v1", "Event", "events", true, false),
    kind("apps", "v1", "Deployment", "deployments", true, true),
    kind("networking.k8s.io", "v1", "Ingress", "ingresses", true, true),
    kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, true),
    kind("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", false, true),
    kind(
      "admissionregistration.k8s.io",
      "v1",
      "ValidatingAdmissionPolicyBinding",
      "validatingadmissionpolicybindings",
      false,
      false,
    ),
    kind(
      "admissionregistration.k8s.io",
      "v1",
      "MutatingWebhookConfiguration",
      "mutatingwebhookconfigurations",
      false,
      false,
    ),
    kind("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", false, false),
    kind("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", false, false),
  ];
}

/** One request's target, parsed from its path. */
export interface Target {
  readonly kind: FakeKind;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

export class KindRegistry {
  private readonly kinds: FakeKind[];

  constructor(kinds: readonly FakeKind[] = builtinKinds()) {
    this.kinds = [...kinds];
  }

  add(k: FakeKind): void {
    if (this.find(apiVersionOf(k), k.kind) === undefined) this.kinds.push(k);
  }

  remove(group: string, plural: string): void {
    const at = this.kinds.findIndex((k) => k.group === group && k.plural === plural);
    if (at >= 0) this.kinds.splice(at, 1);
  }

  find(apiVersion: string, kindName: string): FakeKind | undefined {
    return this.kinds.find((k) => apiVersionOf(k) === apiVersion && k.kind === kindName);
  }

  /** `/api/v1/namespaces/ns/configmaps/name/status` and the like (no query string). */
  parse(path: string): Target | undefined {
    const parts = path
      .split("/")
      .filter((p) => p !== "")
      .map(decodeURIComponent);
    let group: string;
    let version: string | undefined;
    let rest: string[];
    if (parts[0] === "api") [group, version, rest] = ["", parts[1], parts.slice(2)];
    else if (parts[0] === "apis") [group, version, rest] = [parts[1] ?? "", parts[2], parts.slice(3)];
    else return undefined;
    const byPlural = (plural: string | undefined) =>
      this.kinds.find((k) => k.group === group && k.version === version && k.plural === plural);
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const k = byPlural(rest[2]);
      if (k?.namespaced === true) return { kind: k, namespace: rest[1], name: rest[3], subresource: rest[4] };
    }
    const k = byPlural(rest[0]);
    return k === undefined ? undefined : { kind: k, namespace: undefined, name: rest[1], subresource: rest[2] };
  }

  /** The aggregated discovery document of `/api` (core) or `/apis` (every group). */
  discovery(root: "/api" | "/apis"): unknown {
    const groups = new Map<string, Map<string, FakeKind[]>>();
    for (const k of this.kinds) {
      if ((k.group === "") !== (root === "/api")) continue;
      const versions = groups.get(k.group) ?? new Map<string, FakeKind[]>();
      versions.set(k.version, [...(versions.get(k.version) ?? []), k]);
      groups.set(k.group, versions);
    }
    return {
      kind: "APIGroupDiscoveryList",
      apiVersion: "apidiscovery.k8s.io/v2",
      items: [...groups].map(([group, versions]) => ({
        metadata: { name: group },
        versions: [...versions].map(([version, kinds]) => ({
          version,
          resources: kinds.map((k) => ({
            resource: k.plural,
            responseKind: { group: k.group, version: k.version, kind: k.kind },
            scope: k.namespaced ? "Namespaced" : "Cluster",
            verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
            subresources: k.status ? [{ subresource: "status" }] : [],
          })),
        })),
      })),
    };
  }
}
