/**
 * Someone else acting on the fake cluster directly (a user, another controller): writes that
 * bypass the client under test — no request log, no faults — but have every effect a write has
 * (new resourceVersion, watch events, finalizer rules). Objects are named by apiVersion/kind/name.
 */
import { isNotFound, type KubeObject, type ObjectRef } from "../../../src/kube/index.js";
import type { FakeCluster } from "./fake-cluster.js";

export class Actor {
  constructor(
    private readonly cluster: FakeCluster,
    private readonly fieldManager = "kubectl",
  ) {}

  create(object: KubeObject): KubeObject {
    const kind = this.cluster.kindOf(object.apiVersion ?? "", object.kind ?? "");
    return this.cluster.create(kind, object.metadata?.namespace, object, { fieldManager: this.fieldManager });
  }

  /** The object as stored now, or undefined. */
  read(ref: ObjectRef): KubeObject | undefined {
    try {
      return this.cluster.get(this.cluster.kindOf(ref.apiVersion, ref.kind), ref.namespace, ref.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Reads, changes and writes back the object (an update without precondition). */
  edit(ref: ObjectRef, change: (object: KubeObject) => void): KubeObject {
    const current = this.read(ref);
    if (current === undefined) throw new Error(`fake API: ${ref.kind} ${ref.name} does not exist`);
    change(current);
    const { resourceVersion: _rv, ...metadata } = current.metadata ?? {};
    return this.cluster.update(
      this.cluster.kindOf(ref.apiVersion, ref.kind),
      ref.namespace,
      { ...current, metadata },
      { fieldManager: this.fieldManager },
    );
  }

  editStatus(ref: ObjectRef, status: unknown): KubeObject {
    const current = this.read(ref);
    if (current === undefined) throw new Error(`fake API: ${ref.kind} ${ref.name} does not exist`);
    return this.cluster.update(
      this.cluster.kindOf(ref.apiVersion, ref.kind),
      ref.namespace,
      { ...current, status },
      { subresource: "status", fieldManager: this.fieldManager },
    );
  }

  delete(ref: ObjectRef): void {
    this.cluster.delete(this.cluster.kindOf(ref.apiVersion, ref.kind), ref.namespace, ref.name);
  }

  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    return this.cluster.list(this.cluster.kindOf(apiVersion, kind), namespace, () => true);
  }
}
