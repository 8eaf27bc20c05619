/**
 * One instance previewed against a graph on a live cluster, the way a reconcile would go but
 * with every write a server-side dry-run (`dryRun=All`, our field manager, force), so defaults,
 * validation and admission count and nothing is stored. Round after round, as apply-rounds.ts
 * does: evaluate, read what the graph reads, plan the writes with the controller's own planner
 * (UID guards, create-only), dry-run them, and evaluate again with the answers as observed state.
 * Then what the graph no longer wants, judged by the controller's removal rules (we delete only
 * what we created) and dry-run deleted. Only get, list and dry-run requests.
 */
import { ANNOTATIONS, FIELD_MANAGERS } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import {
  adoptionPolicy,
  decideRemoval,
  describeIdentity,
  InventoryFormatError,
  isUidGuardRefusal,
  judgeExisting,
  planApplies,
  readInventory,
  validatedRemovalContext,
  withUid,
  type ApplyStep,
  type InstanceIdentity,
  type Inventory,
  type OwnedChild,
} from "../../controller/index.js";
import {
  clusterOf,
  createMemoryLookup,
  evaluateInstance,
  identityKey,
  identityOf,
  prunePlan,
  type CollectionQuery,
  type InstanceEvaluation,
  type KubeJson,
  type NodeEvaluation,
  type ObjectIdentity,
  type ObservedLookup,
  type RuntimeOptions,
} from "../../runtime/index.js";
import { ownedFieldChanges } from "./diff-fields.js";
import type { InstanceDiff, ObjectDiff } from "./diff-model.js";
import { fetchWatched, MAX_ROUNDS } from "../../inspect/index.js";

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const meta = (
  o: KubeJson,
): {
  uid?: string;
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
} => o.metadata ?? {};

/** A creation key stands in when the instance was never reconciled (it has none yet). */
const PREVIEW_KEY = "kro-diff-preview";

/** Dry-run answers over the live objects: what the graph would see after the writes. */
function layered(answers: Map<string, KubeJson>, live: ObservedLookup): ObservedLookup {
  return {
    get: (identity: ObjectIdentity) => answers.get(identityKey(identity)) ?? live.get(identity),
    list: (query: CollectionQuery) => {
      const seen = new Set<string>();
      const items = live.list(query).map((o) => {
        const id = identityOf(o);
        const key = id === undefined ? "" : identityKey(id);
        seen.add(key);
        return answers.get(key) ?? o;
      });
      const more = [...answers.entries()].filter(([key]) => !seen.has(key)).map(([, o]) => o);
      return [...items, ...createMemoryLookup(more).list(query)];
    },
  };
}

function objectBase(step: { nodeId: string; identity: ObjectIdentity }): Omit<ObjectDiff, "action"> {
  const { apiVersion, kind, namespace, name } = step.identity;
  return { nodeId: step.nodeId, apiVersion, kind, ...(namespace === undefined ? {} : { namespace }), name };
}

interface PreviewState {
  readonly client: KubeClient;
  readonly owner: InstanceIdentity;
  readonly inventory: Inventory;
  readonly policy: ReturnType<typeof adoptionPolicy>;
  readonly live: ObservedLookup;
}

const dryRunApply = (client: KubeClient, body: KubeJson): Promise<KubeJson> =>
  client.apply(body, { fieldManager: FIELD_MANAGERS.applyset, force: true, dryRun: true });

/** The diff of one write: what the dry-run answer changes on the live object, or why it fails. */
async function previewStep(state: PreviewState, step: ApplyStep): Promise<{ diff: ObjectDiff; answer?: KubeJson }> {
  const base = objectBase(step);
  const cluster = clusterOf(step.body);
  if (cluster !== undefined)
    return {
      diff: {
        ...base,
        action: "error",
        reason: `placed in cluster ${cluster}: kro diff previews the current cluster only`,
      },
    };
  const changed = (live: KubeJson, answer: KubeJson, adopt: boolean): { diff: ObjectDiff; answer: KubeJson } => {
    const fields = ownedFieldChanges(live, answer, FIELD_MANAGERS.applyset);
    return {
      diff: {
        ...base,
        action: fields.length === 0 ? "unchanged" : adopt ? "adopt" : "update",
        ...(fields.length === 0 ? {} : { fields }),
      },
      answer,
    };
  };
  try {
    const answer = await dryRunApply(state.client, step.body);
    if (step.mode === "create") return { diff: { ...base, action: "create" }, answer };
    return changed(state.live.get(step.identity) ?? {}, answer, step.mode === "adopt");
  } catch (error) {
    if (!isUidGuardRefusal(error)) return { diff: { ...base, action: "error", reason: `apply: ${message(error)}` } };
  }
  // The guard refused it: whose object is there? Decided as the controller decides (apply-outcome.ts).
  let existing: KubeJson | undefined;
  try {
    existing = await state.client.get<KubeObject & KubeJson>(step.identity);
  } catch (error) {
    if (!isNotFound(error)) return { diff: { ...base, action: "error", reason: `read: ${message(error)}` } };
  }
  if (existing === undefined) {
    // A recorded child that is gone: the controller creates it again.
    try {
      return {
        diff: { ...base, action: "create", reason: "the recorded object is gone" },
        answer: await dryRunApply(state.client, step.desired),
      };
    } catch (error) {
      return { diff: { ...base, action: "error", reason: `apply: ${message(error)}` } };
    }
  }
  const decision = judgeExisting(step, existing, state.owner, state.inventory, state.policy);
  if (decision.kind === "conflict") return { diff: { ...base, action: "conflict", reason: decision.message } };
  if (decision.kind === "retry")
    return { diff: { ...base, action: "error", reason: "the object changed while it was being previewed" } };
  const key = state.inventory.key ?? PREVIEW_KEY;
  const body =
    decision.kind === "record"
      ? withUid(step.desired, decision.entry.uid, { [ANNOTATIONS.creationKey]: key })
      : withUid(step.desired, decision.entry.uid);
  try {
    return changed(existing, await dryRunApply(state.client, body), decision.kind === "adopt");
  } catch (error) {
    return { diff: { ...base, action: "error", reason: `apply: ${message(error)}` } };
  }
}

/** Why an inventory entry is no longer wanted, in the words of the graph. */
function whyUndesired(graph: CompiledGraph, evaluation: InstanceEvaluation, entry: OwnedChild): string {
  if (!graph.nodes.some((n) => n.id === entry.nodeId)) return `resource "${entry.nodeId}" is no longer in the RGD`;
  const node = evaluation.nodes.find((n) => n.id === entry.nodeId);
  if (node?.excluded === true) return "excluded (includeWhen is false)";
  return "no longer desired (its name or the forEach items changed)";
}

/** The removals a reconcile would make, each judged on the live object and dry-run deleted. */
async function previewRemovals(
  state: PreviewState,
  graph: CompiledGraph,
  evaluation: InstanceEvaluation,
): Promise<ObjectDiff[]> {
  if (evaluation.error !== undefined) return [];
  // Pruning waits for a settled graph; entries of nodes still pending are not judged at all.
  const unsettled = new Set(evaluation.nodes.filter((n) => isUnrendered(n)).map((n) => n.id));
  const entries = state.inventory.entries.filter((e) => !unsettled.has(e.nodeId));
  const waves = prunePlan(graph, entries, { ...evaluation, pending: false }) as OwnedChild[][];
  const context = validatedRemovalContext(graph, state.owner, state.inventory, state.policy);
  const out: ObjectDiff[] = [];
  for (const entry of waves.flat()) {
    const base: Omit<ObjectDiff, "action"> = { ...objectBase({ nodeId: entry.nodeId, identity: entry }) };
    const why = whyUndesired(graph, evaluation, entry);
    if (entry.cluster !== undefined) {
      out.push({
        ...base,
        action: "error",
        reason: `in cluster ${entry.cluster}: kro diff previews the current cluster only`,
      });
      continue;
    }
    let live: KubeJson | undefined;
    try {
      live = await state.client.get<KubeObject & KubeJson>(entry, { metadataOnly: true });
    } catch (error) {
      if (!isNotFound(error)) {
        out.push({ ...base, action: "error", reason: `read ${describeIdentity(entry)}: ${message(error)}` });
        continue;
      }
    }
    const action = decideRemoval(entry, live, "live", context(entry));
    switch (action.kind) {
      case "gone":
      case "read":
        break;
      case "wait":
        out.push({ ...base, action: "deleting", reason: why });
        break;
      case "release":
        out.push({ ...base, action: "release", reason: why });
        break;
      case "refuse":
        out.push({ ...base, action: "delete-refused", reason: `${why}; ${action.reason}` });
        break;
      case "delete":
        try {
          await state.client.delete(entry, {
            preconditions: { uid: entry.uid },
            propagationPolicy: "Background",
            dryRun: true,
          });
          out.push({ ...base, action: "delete", reason: why });
        } catch (error) {
          if (!isNotFound(error)) out.push({ ...base, action: "error", reason: `delete (${why}): ${message(error)}` });
        }
    }
  }
  return out;
}

/** A node whose objects are not known yet (not excluded, nothing rendered, waiting). */
const isUnrendered = (n: NodeEvaluation): boolean => !n.excluded && n.pending !== undefined && n.desired.length === 0;

function pendingDiffs(graph: CompiledGraph, evaluation: InstanceEvaluation): ObjectDiff[] {
  return evaluation.nodes.flatMap((n): ObjectDiff[] => {
    const node = graph.nodes.find((g) => g.id === n.id);
    const base = { nodeId: n.id, apiVersion: node?.apiVersion ?? "", kind: node?.kind ?? "" };
    if (n.error !== undefined) return [{ ...base, action: "error", reason: n.error }];
    if (isUnrendered(n)) return [{ ...base, action: "pending", reason: n.pending?.message ?? "waiting" }];
    return [];
  });
}

/**
 * The preview of one instance (as stored, or as a dry-run answer for `-i`) under `graph`.
 * `instance` is already at the graph's version and defaulted by the CRD that would serve it.
 */
export async function previewInstance(
  client: KubeClient,
  graph: CompiledGraph,
  instance: KubeObject & KubeJson,
  options: RuntimeOptions,
): Promise<InstanceDiff> {
  const m = meta(instance);
  const head = {
    apiVersion: String(instance.apiVersion),
    kind: String(instance.kind),
    name: m.name ?? "",
    ...(m.namespace === undefined || m.namespace === "" ? {} : { namespace: m.namespace }),
  };
  let inventory: Inventory;
  try {
    inventory = readInventory(instance);
  } catch (error) {
    if (error instanceof InventoryFormatError) return { ...head, objects: [], error: error.message };
    throw error;
  }
  const owner: InstanceIdentity = {
    uid: m.uid ?? "",
    group: graph.instance.group,
    kind: graph.instance.kind,
    namespace: head.namespace,
    name: head.name,
  };
  const liveStore = createMemoryLookup();
  const answers = new Map<string, KubeJson>();
  const state: PreviewState = {
    client,
    owner,
    inventory,
    policy: adoptionPolicy(m.annotations?.[ANNOTATIONS.adopt], undefined),
    live: liveStore,
  };
  const lookup = layered(answers, liveStore);
  const fetched = new Set<string>();
  const diffs = new Map<string, ObjectDiff>();
  let evaluation = evaluateInstance(graph, instance, lookup, options);
  for (let round = 0; round < MAX_ROUNDS * 2 && evaluation.error === undefined; round++) {
    // Read what this pass names first: a plan on a half-read cluster would see creates everywhere.
    if ((await fetchWatched(client, evaluation.watches, liveStore, fetched)) > 0) {
      evaluation = evaluateInstance(graph, instance, lookup, options);
      continue;
    }
    const steps = planApplies({
      desired: evaluation.apply,
      inventory: { ...inventory, key: inventory.key ?? PREVIEW_KEY },
      cached: (identity) => liveStore.get(identity),
      upToDate: () => false,
      settled: (key) => diffs.has(key),
    });
    if (steps.length === 0) break;
    const results = await Promise.all(steps.map((step) => previewStep(state, step)));
    steps.forEach((step, i) => {
      const result = results[i];
      if (result === undefined) return;
      const key = identityKey(step.identity);
      diffs.set(key, result.diff);
      if (result.answer !== undefined) answers.set(key, result.answer);
    });
    evaluation = evaluateInstance(graph, instance, lookup, options);
  }
  if (evaluation.error !== undefined)
    return { ...head, objects: [...diffs.values(), ...pendingDiffs(graph, evaluation)], error: evaluation.error };
  const objects = [
    ...diffs.values(),
    ...pendingDiffs(graph, evaluation),
    ...(await previewRemovals(state, graph, evaluation)),
  ];
  return { ...head, objects };
}
