/**
 * The replica's crash record: one ConfigMap `kro-inflight-<replica>` in the coordination
 * namespace, written by server-side apply (one request, created on first use), holding the
 * evaluations in flight and the suspects of earlier crashes as JSON (evaluation-guard.ts). Its
 * name must outlive the process: the replica id, or the host name (a pod's name survives its
 * container's restarts). A record that does not parse is read as empty, with a warning: a bad
 * record must never keep the controller from starting.
 */
import { isForbidden, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import type { CrashRecordData, CrashRecordStore, EvaluationRef, Suspect } from "./evaluation-guard.js";

const FIELD_MANAGER = "kro-crash-record";

/** A ConfigMap name for a replica id: lowercase DNS subdomain characters, at most 253. */
export function crashRecordName(replica: string): string {
  const cleaned = replica.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
  return `kro-inflight-${cleaned === "" ? "controller" : cleaned}`.slice(0, 253).replace(/[^a-z0-9]+$/, "");
}

export class ConfigMapCrashRecord implements CrashRecordStore {
  private warnedForbidden = false;

  constructor(private readonly client: Pick<KubeClient, "get" | "apply">, readonly namespace: string, readonly name: string, private readonly logger: Logger) {}

  async read(): Promise<CrashRecordData | undefined> {
    let cm: KubeObject & { data?: Record<string, string> };
    try {
      cm = await this.client.get({ apiVersion: "v1", kind: "ConfigMap", namespace: this.namespace, name: this.name });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (isForbidden(error)) return undefined; // write() says so, once
      throw error;
    }
    try {
      return { inflight: parseList(cm.data?.inflight, isRef), suspects: parseList(cm.data?.suspects, isSuspect) };
    } catch (error) {
      this.logger.warn({ configMap: `${this.namespace}/${this.name}`, err: (error as Error).message }, "crash record does not parse: read as empty");
      return undefined;
    }
  }

  async write(data: CrashRecordData): Promise<boolean> {
    const body = {
      apiVersion: "v1", kind: "ConfigMap",
      metadata: { name: this.name, namespace: this.namespace, labels: { "app.kubernetes.io/managed-by": "kro", "kro.run/crash-record": "true" } },
      data: { inflight: JSON.stringify(data.inflight), suspects: JSON.stringify(data.suspects) },
    };
    try {
      await this.client.apply(body, { fieldManager: FIELD_MANAGER, force: true });
      return true;
    } catch (error) {
      if (!isForbidden(error) && !isNotFound(error)) throw error;
      if (!this.warnedForbidden) {
        this.warnedForbidden = true;
        this.logger.error({ configMap: `${this.namespace}/${this.name}`, err: (error as Error).message },
          "the crash record cannot be kept (grant get/create/patch on this ConfigMap, or create the namespace): an instance that crashes the controller will do so after every restart");
      }
      return false;
    }
  }
}

function parseList<T>(text: string | undefined, valid: (x: unknown) => x is T): T[] {
  if (text === undefined || text === "") return [];
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error("not a JSON list");
  return value.filter(valid);
}

function isRef(x: unknown): x is EvaluationRef {
  const r = x as Partial<EvaluationRef> | null;
  return typeof r === "object" && r !== null && typeof r.key === "string" && typeof r.uid === "string" && typeof r.generation === "number";
}

function isSuspect(x: unknown): x is Suspect {
  const s = x as Partial<Suspect> | null;
  return isRef(x) && typeof s?.crashes === "number" && typeof s.lastCrash === "string";
}
