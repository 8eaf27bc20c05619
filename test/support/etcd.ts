/**
 * What etcd really holds for an object, read through etcd's JSON gateway (POST /v3/kv/range on
 * the client URL the test control plane exports). Custom resources are stored as JSON, so the
 * stored apiVersion says at which version the API server encoded it — the storage version that a
 * storage migration must have moved every object to.
 */
import assert from "node:assert/strict";
import { testCluster } from "./test-cluster.js";

/** The stored JSON of a namespaced custom resource, or undefined when etcd has no such key. */
export async function storedCustomResource(
  group: string,
  plural: string,
  namespace: string,
  name: string,
): Promise<{ apiVersion?: string } | undefined> {
  const endpoint = testCluster().etcdEndpoint;
  assert.ok(endpoint !== undefined, "the test control plane exports etcd's endpoint (KRO_TEST_ETCD_ENDPOINT)");
  const key = Buffer.from(`/registry/${group}/${plural}/${namespace}/${name}`).toString("base64");
  const response = await fetch(`${endpoint}/v3/kv/range`, {
    method: "POST",
    body: JSON.stringify({ key }),
    headers: { "content-type": "application/json" },
  });
  assert.equal(response.status, 200, `etcd range: ${await response.clone().text()}`);
  const body = (await response.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined
    ? undefined
    : (JSON.parse(Buffer.from(value, "base64").toString("utf8")) as { apiVersion?: string });
}
