/**
 * From a child's owner labels back to its instance. The instance-name label holds the name, or
 * for names over 63 characters its shortened form (api/label-value.ts), which cannot be read
 * back: then the instance is found among the served instances of that kind whose name shortens
 * to the label (only long names pay for that scan).
 */
import { LABELS, labelMatches } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { instanceKey, type ServedGraphs } from "../context/index.js";

export type InstanceStoreOf = (
  rgdName: string,
) =>
  | { list(): readonly KubeObject[]; getByName(namespace: string | undefined, name: string): KubeObject | undefined }
  | undefined;

export function childOwnerRouter(served: ServedGraphs, instancesOf: InstanceStoreOf) {
  return (labels: Readonly<Record<string, string>>): string | undefined => {
    const group = labels[LABELS.instanceGroup];
    const kind = labels[LABELS.instanceKind];
    const name = labels[LABELS.instanceName];
    if (group === undefined || kind === undefined || name === undefined) return undefined;
    const entry = served.forKindLabels(group, kind);
    if (entry === undefined) return undefined;
    const namespace = labels[LABELS.instanceNamespace];
    const store = instancesOf(entry.rgdName);
    if (store === undefined || store.getByName(namespace, name) !== undefined)
      return instanceKey(entry.rgdName, namespace, name);
    const long = store
      .list()
      .find((o) => (o.metadata?.namespace ?? undefined) === namespace && labelMatches(name, o.metadata?.name ?? ""));
    return instanceKey(entry.rgdName, namespace, long?.metadata?.name ?? name);
  };
}
