/**
 * Every group, label, annotation and finalizer key kro-ts writes, in one place, so that the
 * controller, the runtime and the CLI can never disagree about a spelling. Values follow kro
 * v0.9 (docs/reference/kro-reference.md §2.5, §6.8) so objects stay recognisable to kro users.
 */
export const KRO_GROUP = "kro.run";
export const KRO_VERSION = "v1alpha1";
export const KRO_API_VERSION = `${KRO_GROUP}/${KRO_VERSION}`;

export const RGD = {
  kind: "ResourceGraphDefinition",
  listKind: "ResourceGraphDefinitionList",
  plural: "resourcegraphdefinitions",
  singular: "resourcegraphdefinition",
  shortName: "rgd",
  crdName: `resourcegraphdefinitions.${KRO_GROUP}`,
} as const;

/**
 * GraphRevision (kro v0.9, `internal.kro.run/v1alpha1`): an immutable snapshot of an RGD spec that
 * compiled and was served, so the last good graph survives a restart. Cluster-scoped, one per
 * issued revision, named `<rgd>-r<5-digit revision>`.
 */
export const INTERNAL_KRO_GROUP = "internal.kro.run";
export const GRAPH_REVISION = {
  apiVersion: `${INTERNAL_KRO_GROUP}/${KRO_VERSION}`,
  kind: "GraphRevision",
  listKind: "GraphRevisionList",
  plural: "graphrevisions",
  singular: "graphrevision",
  shortName: "gr",
  crdName: `graphrevisions.${INTERNAL_KRO_GROUP}`,
} as const;

export const FINALIZER = "kro.run/finalizer";

export const ANNOTATIONS = {
  /** kro-ts, on a generated CRD while storage migration runs: {"to": version, "continue": list token} (controller/conversion). */
  storageMigration: "internal.kro.run/storage-migration",
  allowBreakingChanges: "kro.run/allow-breaking-changes",
  reconcile: "kro.run/reconcile",
  applyOrder: "internal.kro.run/apply-order",
  /** kro-ts, on an item of a collection with propagateWhen: a hash of the desired object it was last written as (its `updated()`). */
  desiredHash: "internal.kro.run/desired-hash",
  applysetTooling: "applyset.kubernetes.io/tooling",
  applysetGroupKinds: "applyset.kubernetes.io/contains-group-kinds",
  applysetAdditionalNamespaces: "applyset.kubernetes.io/additional-namespaces",
  applysetInventoryHash: "internal.kro.run/applyset-inventory-hash",
  /** kro-ts: the children this instance created or adopted, by UID, and its creation key (controller/inventory.ts). */
  inventory: "internal.kro.run/inventory",
  /**
   * kro-ts, on a child the RGD places in another cluster: the registered cluster it lives in. Set
   * only from the resource's `cluster:` field (the prefix is reserved in templates), and part of
   * the child's identity, so the same name in two clusters is two children (docs/design/clusters.md).
   */
  cluster: "kro.run/cluster",
  /**
   * kro-ts, on an instance whose templates read the clock: "<generation>@<RFC 3339 time>", the
   * instant the controller first saw that generation; `now` (and certificate validity) renders
   * from it, so a resync or a restart renders the same bytes (runtime/template-dialect/entropy.ts).
   */
  renderTime: "internal.kro.run/render-time",
  /**
   * kro-ts, on an instance of an imported chart: `{"generation":N,"done":["Job/rel-migrate-2",…]}`,
   * the hook runs of generation N the controller saw complete. A hook runs once per install or
   * upgrade, as in Helm: a done run that is deleted afterwards (a Job's ttlSecondsAfterFinished,
   * `hook-delete-policy: hook-succeeded`) is not created again (runtime/template-dialect/hook-runs.ts).
   */
  hookRuns: "internal.kro.run/hook-runs",
  /**
   * kro-ts, on an adopted child: `{"labels":{"app.kubernetes.io/managed-by":"Helm"},"manager":"helm"}`,
   * the values kro's own labels overwrote when the object was adopted and the field manager that
   * had written them, so releasing it hands it back as it was (controller/instance/adoption-record.ts).
   */
  adoptedLabels: "internal.kro.run/adopted-labels",
  /**
   * kro-ts, on an instance: the generation whose evaluation the controller started and has not
   * reported on yet (no status for it): written before that evaluation, in the patch that adds the
   * finalizer; if the process dies in it, the next one knows (controller/isolation/evaluation-guard.ts).
   */
  evaluating: "internal.kro.run/evaluating",
  /** kro-ts, on an instance: "<generation>:<count>", controller crashes counted during that generation's evaluation. */
  evaluationCrashes: "internal.kro.run/evaluation-crashes",
  /** kro-ts: on every child we create, the creation key of its instance (proof we made it). */
  creationKey: "internal.kro.run/creation-key",
  /**
   * kro-ts opt-in, on an instance (or on an RGD, for all its instances): take over children that
   * already exist. "true": adopt, and release them (never delete) when the instance or node goes;
   * "delete": adopt, and delete them like our own. Absent or anything else: never touch them.
   */
  adopt: "kro.run/adopt",
  /**
   * On an instance of an imported chart: it took over Helm release revision N (`kro import helm
   * --release`), whose install hooks ran under Helm, so generation 1 runs no hook (hook-runs.ts).
   */
  helmAdoptedRelease: "helm.kro.run/adopted-release",
  /**
   * On a Helm release record (the Secret or ConfigMap `sh.helm.release.v1.NAME.vN`) that `kro
   * import helm --release --apply` marked `uninstalled`: the instance that now manages the
   * release's objects (`Kind namespace/name (apiVersion)`).
   */
  helmMigratedTo: "helm.kro.run/migrated-to",
  /** On an RGD, "true": children may go to namespaces other than the instance's (docs/design/authorization.md). */
  allowCrossNamespace: "kro.run/allow-cross-namespace",
  /** On an RGD, "true": a namespaced instance may have cluster-scoped children. */
  allowClusterScoped: "kro.run/allow-cluster-scoped",
  /** On an RGD: "Disabled" turns the instance-author permission check off (default "Enforced"). */
  authorCheck: "kro.run/author-check",
  /** On an RGD: comma-separated resource ids whose permission instance authors need not hold. */
  authorCheckExempt: "kro.run/author-check-exempt",
  /**
   * On an RGD that delegates (an exemption, or the author check Disabled): the user who wrote the
   * delegation, and their groups (comma-separated). The static admission policy kro-delegation
   * admits only the writer's own values, and the controller verifies with SubjectAccessReviews
   * that this user holds the delegated rights (docs/design/authorization.md, "Delegation").
   */
  delegatedBy: "kro.run/delegated-by",
  delegatedGroups: "kro.run/delegated-groups",
  /**
   * Set by the controller on an instance written while its RGD's author policy was not in force
   * (deleted or edited): nothing is done for it until someone removes the annotation — a write
   * the restored policy checks (docs/design/authorization.md, "Fail closed").
   */
  uncheckedAdmission: "kro.run/unchecked-admission",
  /**
   * On an instance: who last wrote it, and their groups (comma-separated) — stamped by the
   * controller's requester webhook, or written by the writer themselves. The RGD's author policy
   * admits only the writer's own values, so the record cannot be forged; the write gate asks a
   * SubjectAccessReview for this user wherever instance data chooses a child's scope. The
   * controller copies the outer record onto a nested instance (docs/design/authorization.md).
   */
  requestedBy: "kro.run/requested-by",
  requestedGroups: "kro.run/requested-groups",
  /**
   * On an RGD: who last wrote its spec, and their groups (comma-separated) — stamped by the
   * controller's RGD-author webhook, or written by the writer themselves; the static kro-rgd-author
   * admission policy admits only the writer's own values. Every write and read an instance causes
   * in the controller's cluster is bounded by this user's rights (docs/design/authorization.md).
   */
  authoredBy: "kro.run/authored-by",
  authoredGroups: "kro.run/authored-groups",
  /**
   * kro-ts, on an instance, written by its author: the GraphRevision number it stays on whatever
   * the rollout does, within the RGD's spec.rollout.pinning (docs/design/rollouts.md).
   */
  pinGraphRevision: "kro.run/pin-graph-revision",
  /** kro-ts, on an RGD with spec.rollout, "true": no instance moves to a newer revision (kro rollout pause). */
  rolloutPaused: "kro.run/rollout-paused",
} as const;

/**
 * kro-ts: the status field of an instance of an RGD with spec.rollout that records the revision it
 * runs: `assigned`/`assignedAt` by the rollout, `evaluated`/`healthyAt`/`unhealthy` by its
 * reconcile (docs/design/rollouts.md). Status, so only the controller writes it.
 */
export const GRAPH_REVISION_STATUS = {
  field: "graphRevision",
} as const;

/**
 * kro-ts: the status field of an instance that holds the children it owns (by UID) when its CRD
 * has the field: written with the status, so recording a pass costs no write of its own
 * (controller/instance/inventory.ts). The annotation keeps the creation key, written before any child.
 */
export const STATUS_RECORD = {
  field: "kroInventory",
  /** Marks the field as ours in a CRD: an author's status field of the same name is not taken for it. */
  description: "kro-ts: the objects this instance created or adopted (by UID). Written by the controller; do not edit.",
} as const;

/** Values of ANNOTATIONS.authorCheck. */
export const AUTHOR_CHECK = { enforced: "Enforced", disabled: "Disabled" } as const;

/** Value of ANNOTATIONS.reconcile that pauses an instance. */
export const RECONCILE_SUSPENDED = "suspended";

export const LABELS = {
  owned: "kro.run/owned",
  kroVersion: "kro.run/kro-version",
  rgdId: "kro.run/resource-graph-definition-id",
  rgdName: "kro.run/resource-graph-definition-name",
  /** On a GraphRevision: a hash of its snapshot spec, for kubectl only (never read back, as in kro). */
  graphRevisionHash: "kro.run/graph-revision-hash",
  instanceId: "kro.run/instance-id",
  instanceName: "kro.run/instance-name",
  instanceNamespace: "kro.run/instance-namespace",
  instanceGroup: "kro.run/instance-group",
  instanceVersion: "kro.run/instance-version",
  instanceKind: "kro.run/instance-kind",
  nodeId: "kro.run/node-id",
  /** forEach items: position in the cartesian product and the product's size (§6.7). */
  collectionIndex: "kro.run/collection-index",
  collectionSize: "kro.run/collection-size",
  managedBy: "app.kubernetes.io/managed-by",
  applysetPartOf: "applyset.kubernetes.io/part-of",
  /** Template dialect: every child is labelled app=<parent name> (docs/reference/seed-dialect.md §3). */
  app: "app",
  /** On the Leases of instance sharding: the group they belong to, and "shard" or "member". */
  shardGroup: "kro.run/shard-group",
  shardRole: "kro.run/shard-role",
  /**
   * With `--shards N`: the shard of an instance (a function of its identity, shard-assignment.ts),
   * stamped by the controller on the instance and on every child so each replica's informers
   * select only the shards it holds. Only a filter: a wrong value is corrected, never obeyed.
   */
  shard: "kro.run/shard",
} as const;

export const MANAGED_BY_VALUE = "kro";

export const FIELD_MANAGERS = {
  applyset: "kro.run/applyset",
  applysetParent: "kro.run/applyset-parent",
  controller: "kro.run/controller",
  /** Adds kro's finalizer and labels to instances. */
  labeller: "kro.run/labeller",
} as const;

/** Instance condition types (docs/reference/kro-reference.md §6.10); `Ready` is the root the others roll up to. */
export const INSTANCE_CONDITIONS = {
  instanceManaged: "InstanceManaged",
  graphResolved: "GraphResolved",
  resourcesReady: "ResourcesReady",
  ready: "Ready",
} as const;

/** Reasons kro writes on the instance conditions. */
export const INSTANCE_CONDITION_REASONS = {
  managed: "Managed",
  managementFailed: "ManagementFailed",
  resolved: "Resolved",
  resolutionFailed: "ResolutionFailed",
  allResourcesReady: "AllResourcesReady",
  /** kro's False reason for ResourcesReady (ConditionsMarker.ResourcesNotReady). */
  resourcesNotReady: "ResourcesNotReady",
  /** kro's Unknown reason for ResourcesReady (ConditionsMarker.ResourcesInProgress): waiting, deleting. */
  resourcesInProgress: "ResourcesInProgress",
  /** kro-ts only: a child is terminating (kro has no such state). */
  resourceDeleting: "ResourceDeleting",
  /** kro-ts only: the kro.run/reconcile annotation suspends reconciliation. */
  reconciliationSuspended: "ReconciliationSuspended",
  /** kro-ts only: evaluating this generation killed the controller process repeatedly (isolation/evaluation-guard.ts). */
  evaluationCrashed: "EvaluationCrashed",
  ready: "Ready",
  /** kro-ts only, kstatus (Reconciling/Stalled): the instance is not Ready but is making progress. */
  progressing: "Progressing",
} as const;

/**
 * kro-ts only: the kstatus conditions (sigs.k8s.io/cli-utils/pkg/kstatus), present only while True
 * ("abnormal-true"), so Flux, `kubectl wait` and Argo CD judge instances without a custom rule.
 */
export const KSTATUS_CONDITIONS = {
  reconciling: "Reconciling",
  stalled: "Stalled",
} as const;

/** `status.state` of an instance (§6.10). */
export const INSTANCE_STATES = {
  active: "ACTIVE",
  inProgress: "IN_PROGRESS",
  error: "ERROR",
  deleting: "DELETING",
} as const;
