/**
 * What adopting a live Helm release would do, decided before anything is written: which of the
 * release's objects the imported instance takes over, which fields it would change on them, which
 * of those changes restart pods (a workload's pod template), which objects it would create, and
 * which of the release's objects it would leave behind. `kro import helm --release --apply`
 * refuses a migration that would restart pods unless asked, so "zero downtime" is checked, not
 * hoped for.
 *
 * Pure: the CLI renders the instance as the controller will (lookups and capabilities from the
 * cluster), reads the live objects and asks the API server for a dry-run apply of each object to
 * adopt; this compares them.
 */
import { loadYaml } from "../api/index.js";
import type { HelmHookRecord } from "./release-record.js";
import type { KubeObject as KubeJson } from "./types.js";

export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface FieldChange {
  /** Dotted path with list indexes, e.g. `spec.template.spec.containers[0].image`. */
  readonly path: string;
  readonly live: unknown;
  readonly desired: unknown;
}

export interface AdoptedObject {
  readonly identity: ObjectIdentity;
  readonly uid: string;
  readonly changes: readonly FieldChange[];
  /** The changes under a workload's pod template: applying them rolls the pods. */
  readonly restarts: readonly FieldChange[];
  /**
   * How the changes were found: "server" — a server-side dry-run apply said what would be stored
   * (defaults, dropped zero values and admission included); otherwise the offline text
   * comparison, with the reason the server was not asked or refused.
   */
  readonly checkedBy: "server" | { readonly offline: string };
}

export interface CreatedObject extends ObjectIdentity {
  /** The chart's `helm.sh/hook` annotation when the object is a hook: creating it runs it again. */
  readonly hook?: string;
}

export interface MigrationPlan {
  readonly adopt: readonly AdoptedObject[];
  /** Rendered by the import, not live: the controller creates them. */
  readonly create: readonly CreatedObject[];
  /** Live objects of the release the import does not render: nobody manages them after the migration (hooks: their events). */
  readonly leftBehind: readonly CreatedObject[];
}

/** Kinds whose `spec.template` is a pod template (a change rolls the pods). */
const POD_TEMPLATE_PATHS: Readonly<Record<string, string>> = {
  Deployment: "spec.template",
  StatefulSet: "spec.template",
  DaemonSet: "spec.template",
  ReplicaSet: "spec.template",
  ReplicationController: "spec.template",
  Job: "spec.template",
  CronJob: "spec.jobTemplate",
};

const isRecord = (value: unknown): value is KubeJson =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function identityOf(object: KubeJson, defaultNamespace?: string): ObjectIdentity {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const namespace =
    typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : defaultNamespace;
  return {
    apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
    kind: typeof object.kind === "string" ? object.kind : "",
    ...(namespace === undefined ? {} : { namespace }),
    name: typeof metadata.name === "string" ? metadata.name : "",
  };
}

/** apiVersion is left out: the same object is served under several versions. */
export const identityKey = (id: ObjectIdentity): string =>
  `${id.apiVersion.includes("/") ? id.apiVersion.slice(0, id.apiVersion.indexOf("/")) : ""}/${id.kind}/${id.namespace ?? ""}/${id.name}`;

export const describeObject = (id: ObjectIdentity): string =>
  `${id.kind} ${id.namespace === undefined ? "" : `${id.namespace}/`}${id.name}`;

/**
 * The objects of a release's rendered manifest (`---`-separated, `# Source:` comments), each
 * without a namespace given the release's namespace. Cluster-scoped kinds keep that namespace
 * here; callers compare by identity after asking the cluster, so treat it as a hint.
 */
export function manifestObjects(manifest: string, namespace: string): KubeJson[] {
  const loaded = loadYaml("release manifest", manifest);
  return loaded.documents
    .map((d) => d.value)
    .filter(isRecord)
    .map((object) => {
      const metadata = isRecord(object.metadata) ? object.metadata : {};
      return typeof metadata.namespace === "string" && metadata.namespace !== ""
        ? object
        : { ...object, metadata: { ...metadata, namespace } };
    });
}

/** Numbers and their decimal strings are the same value to the API server's typed fields (ports, replicas). */
function sameScalar(live: unknown, desired: unknown): boolean {
  if (live === desired) return true;
  if (
    (typeof live === "number" && typeof desired === "string") ||
    (typeof live === "string" && typeof desired === "number")
  )
    return String(live) === String(desired);
  return false;
}

/** Every field the desired object sets that the live one does not hold (what an apply would change). */
export function fieldChanges(live: unknown, desired: unknown, path = ""): FieldChange[] {
  if (isRecord(desired)) {
    if (!isRecord(live)) return [{ path, live, desired }];
    return Object.entries(desired).flatMap(([key, value]) =>
      fieldChanges(live[key], value, path === "" ? key : `${path}.${key}`),
    );
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || live.length !== desired.length) return [{ path, live, desired }];
    return desired.flatMap((value, index) => fieldChanges(live[index], value, `${path}[${index}]`));
  }
  if (desired === null) return live === null || live === undefined ? [] : [{ path, live, desired }];
  return sameScalar(live, desired) ? [] : [{ path, live, desired }];
}

/** The body an apply would change: metadata is left out (kro's labels and annotations are expected to be added). */
function body(object: KubeJson): KubeJson {
  const { metadata: _metadata, status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

function hookOf(object: KubeJson): string | undefined {
  const annotations =
    isRecord(object.metadata) && isRecord(object.metadata.annotations) ? object.metadata.annotations : {};
  const hook = annotations["helm.sh/hook"];
  return typeof hook === "string" ? hook : undefined;
}

/**
 * @param desired what the controller would apply for the imported instance (rendered offline)
 * @param release the release's objects (from its manifest and its hooks' manifests)
 * @param live the release's objects as they are on the cluster, by identityKey (absent: not there)
 */
/** What a server-side dry-run apply of a desired object answered: the object as it would be stored, or why it refused. */
export type DryRunAnswer = { readonly stored: KubeJson } | { readonly refused: string };

const valueAt = (object: unknown, dotted: string): unknown =>
  dotted.split(".").reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), object);

/** Order-insensitive for keys, order-sensitive for lists: what the API server stores is compared with what it holds. */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isRecord(a) || isRecord(b)) {
    if (!isRecord(a) || !isRecord(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}

/**
 * @param desired what the controller would apply for the imported instance (rendered offline)
 * @param release the release's objects (from its manifest and its hooks' manifests)
 * @param live the release's objects as they are on the cluster, by identityKey (absent: not there)
 * @param dryRuns the API server's answers to a dry-run apply of desired objects, by identityKey:
 *   "would pods restart?" is then whether the stored pod template differs from the live one
 */
export function planMigration(
  desired: readonly KubeJson[],
  release: readonly KubeJson[],
  live: ReadonlyMap<string, KubeJson>,
  dryRuns: ReadonlyMap<string, DryRunAnswer> = new Map(),
): MigrationPlan {
  const desiredKeys = new Set<string>();
  const adopt: AdoptedObject[] = [];
  const create: CreatedObject[] = [];
  for (const object of desired) {
    const identity = identityOf(object);
    const key = identityKey(identity);
    desiredKeys.add(key);
    const current = live.get(key);
    if (current === undefined) {
      const hook = hookOf(object);
      create.push(hook === undefined ? identity : { ...identity, hook });
      continue;
    }
    const answer = dryRuns.get(key);
    const stored = answer !== undefined && "stored" in answer ? answer.stored : undefined;
    const changes = fieldChanges(body(current), body(stored ?? object));
    const templatePath = POD_TEMPLATE_PATHS[identity.kind];
    const metadata = isRecord(current.metadata) ? current.metadata : {};
    const underTemplate =
      templatePath === undefined
        ? []
        : changes.filter((c) => c.path === templatePath || c.path.startsWith(`${templatePath}.`));
    adopt.push({
      identity,
      uid: typeof metadata.uid === "string" ? metadata.uid : "",
      changes,
      // The server's answer decides: the pods roll exactly when the stored template would differ.
      restarts:
        templatePath === undefined
          ? []
          : stored === undefined
            ? underTemplate
            : sameJson(valueAt(current, templatePath), valueAt(stored, templatePath))
              ? []
              : underTemplate.length > 0
                ? underTemplate
                : [
                    {
                      path: templatePath,
                      live: valueAt(current, templatePath),
                      desired: valueAt(stored, templatePath),
                    },
                  ],
      checkedBy:
        stored !== undefined
          ? "server"
          : {
              offline:
                answer !== undefined && "refused" in answer
                  ? `the dry run was refused: ${answer.refused}`
                  : "not checked by the API server",
            },
    });
  }
  const leftBehind = release.flatMap((o): CreatedObject[] => {
    const id = identityOf(o);
    if (desiredKeys.has(identityKey(id)) || !live.has(identityKey(id))) return [];
    const hook = hookOf(o);
    return [hook === undefined ? id : { ...id, hook }];
  });
  return { adopt, create, leftBehind };
}

/** Helm's test hook events: Helm runs such a hook only on `helm test`, never at install or upgrade. */
const TEST_EVENTS = new Set(["test", "test-success", "test-failure"]);
const isTestHook = (hook: string): boolean =>
  hook
    .split(",")
    .map((h) => h.trim())
    .every((h) => TEST_EVENTS.has(h));

/** What the release's hooks did under Helm, for the migration's notes: test hooks apart, with their last `helm test`. */
export function describeReleaseHooks(hooks: readonly HelmHookRecord[]): string[] {
  const lifecycle = hooks.filter((h) => !isTestHook(h.events.join(",")));
  const tests = hooks.filter((h) => isTestHook(h.events.join(",")));
  const lines: string[] = [];
  if (lifecycle.length > 0)
    lines.push(
      `the release has ${lifecycle.length} hook(s) that ran under Helm as their events say (${lifecycle.map((h) => `${h.kind}/${h.name} [${h.events.join(",")}]`).join(", ")}); the adopting instance runs none of them again and runs upgrade hooks, as new objects, from its next spec change (see the plan)`,
    );
  if (tests.length > 0)
    lines.push(
      `the release has ${tests.length} test hook(s), which Helm runs only on \`helm test\`, never at install or upgrade (${tests.map((h) => `${h.kind}/${h.name}: ${h.lastRun.phase === "" ? "not run" : `last helm test ${h.lastRun.phase}${h.lastRun.completedAt === "" ? "" : ` at ${h.lastRun.completedAt}`}`}`).join(", ")}); kro-ts has no \`helm test\` and never runs them`,
    );
  return lines;
}

const shown = (value: unknown): string => (value === undefined ? "(unset)" : JSON.stringify(value).slice(0, 80));

/** The plan as lines for a terminal: one per object, then one per changed field. */
export function describePlan(plan: MigrationPlan): string[] {
  const lines: string[] = [];
  for (const a of plan.adopt) {
    const verdict =
      a.restarts.length > 0
        ? "adopt in place, ROLLS ITS PODS"
        : a.changes.length > 0
          ? "adopt in place, fields change"
          : "adopt in place, unchanged";
    const how = a.checkedBy === "server" ? "" : ` [${a.checkedBy.offline}; compared offline]`;
    lines.push(`  ${describeObject(a.identity)} (uid ${a.uid}): ${verdict}${how}`);
    for (const c of a.changes) lines.push(`      ${c.path}: ${shown(c.live)} -> ${shown(c.desired)}`);
  }
  for (const id of plan.create) {
    lines.push(
      id.hook === undefined
        ? `  ${describeObject(id)}: not live, will be created`
        : `  ${describeObject(id)}: a Helm hook (${id.hook}) the controller will create, so it RUNS`,
    );
  }
  for (const id of plan.leftBehind) {
    lines.push(
      id.hook === undefined
        ? `  ${describeObject(id)}: in the release but not in the import, left as it is (unmanaged)`
        : isTestHook(id.hook)
          ? `  ${describeObject(id)}: a Helm test hook (${id.hook}), run only by \`helm test\` (never at install or upgrade), left as it is (unmanaged); kro-ts never runs it`
          : `  ${describeObject(id)}: a Helm hook (${id.hook}) that ran under Helm, left as it is (unmanaged); upgrade hooks run again, as new objects, from the instance's next spec change`,
    );
  }
  return lines;
}
