/**
 * A client whose every call fails once `state.cut` is set: a replica that died or was partitioned,
 * as the other replicas see it. Shared by the sharding tests.
 */
import type { KubeClient } from "../../src/kube/index.js";

export function cuttable(client: KubeClient, state: { readonly cut: boolean }): KubeClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        state.cut ? Promise.reject(new Error("cut off")) : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}
