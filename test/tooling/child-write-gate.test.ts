// One gate for every write to a child: in the controller's source, a client write (apply, create,
// replace, patch, delete, applyStatus/replaceStatus) appears only in the files listed here, each for
// the objects it names. Children are written only by the instance room's child port, which passes
// every request through the write gate (src/controller/instance/write-gate.ts). A new write
// anywhere else fails here until it is routed through the port or listed with its reason.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** File (under src/controller/) → what it writes. None of them writes an instance's child. */
const WRITERS: Readonly<Record<string, string>> = {
  "instance/child-port.ts": "children of instances, through the write gate",
  "instance/record.ts": "the instance itself (ownership record, finalizer)",
  "instance/unchecked-admission.ts": "the instance itself (the held-back stamp)",
  "instance/status-write.ts": "the instance's status subresource",
  "instance/instance-marks.ts": "the instance itself (finalizer and labels)",
  "sharded-caches.ts": "the shard label of an instance",
  "rgd/reconcile.ts": "the RGD's status",
  "rgd/rgd-deletion.ts": "the RGD's finalizer and its own CRD",
  "rgd/graph-revisions.ts": "GraphRevisions",
  "crds/crd-installer.ts": "CRDs",
  "crds/user-crd.ts": "the status schema of a user's CRD",
  "conversion/certificate-store.ts": "the webhook's certificate Secret",
  "conversion/storage-migration.ts": "instances rewritten unchanged (storage migration) and the CRD's stored versions",
  "author-policy/author-policy.ts": "admission policies and bindings",
  "author-policy/delegation-policy.ts": "the delegation policy and binding",
  "author-policy/policy-load-proof.ts": "a dry run of the delegation policy's probe Event (nothing is stored)",
  "author-policy/requester-webhook.ts": "the requester webhook configuration",
  "coordination/leader-election.ts": "Leases",
  "coordination/shard-coordinator.ts": "shard Leases",
  "coordination/rgd-leadership.ts": "per-RGD Leases",
  "ui/token-review.ts": "TokenReviews (no object is stored)",
  "context/events.ts": "Events",
  "coordination/coordination-namespace.ts": "the controller's coordination namespace",
  "rgd/rgd-status-write.ts": "the RGD's status",
  "rgd/rollout-step.ts": "an instance's assigned GraphRevision (its status subresource, under spec.rollout)",
};

/** KubeClient's write methods (src/kube/client.ts). */
const WRITE_CALL = /\.\s*(apply|applyStatus|create|replace|updateStatus|patch|delete)\s*(<[^>(]*>)?\s*\(/g;

function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sources(rel));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) found.push(rel);
  }
  return found;
}

/**
 * Client write calls in a file: the statement leading to the call mentions a client (`ctx.client`,
 * `clientFor(…)`, a `client` parameter), unlike a Map's or Set's `delete`.
 */
export function clientWrites(text: string): string[] {
  const writes: string[] = [];
  for (const match of text.matchAll(WRITE_CALL)) {
    const before = text.slice(0, match.index);
    const statement = before.slice(
      Math.max(before.lastIndexOf(";"), before.lastIndexOf("{"), before.lastIndexOf("}")) + 1,
    );
    const receiver = statement.replace(/\s+/g, " ").trim();
    if (/client/i.test(receiver)) writes.push(`${receiver.slice(-60)}.${match[1] ?? ""}`);
  }
  return writes;
}

describe("the child write gate", () => {
  it("no controller file outside the listed ones sends a client write; children only through the child port", () => {
    const unlisted: string[] = [];
    for (const file of sources("src/controller")) {
      const rel = file.slice("src/controller/".length);
      const writes = clientWrites(readFileSync(path.join(ROOT, file), "utf8"));
      if (writes.length > 0 && WRITERS[rel] === undefined) unlisted.push(`${rel}: ${writes.join(", ")}`);
    }
    assert.deepEqual(
      unlisted,
      [],
      "route the write through instance/child-port.ts, or list the file with what it writes",
    );
  });

  it("sees a client write where it is (the check can fail)", () => {
    assert.deepEqual(clientWrites("x; await ctx.client.apply(body, {});"), ["await ctx.client.apply"]);
    assert.deepEqual(clientWrites("{ return (await clientFor(ctx, x)).delete(ref)"), [
      "return (await clientFor(ctx, x)).delete",
    ]);
    assert.deepEqual(clientWrites("{ void ctx.client\n  .withFence(f)\n  .patch(ref, {})"), [
      "void ctx.client .withFence(f).patch",
    ]);
    assert.deepEqual(clientWrites("{ this.running.delete(key); seen.add(x)"), []);
  });
});
