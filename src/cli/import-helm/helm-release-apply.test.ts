import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeClient } from "../../kube/index.js";
import { InputError } from "../inputs/index.js";
import { applyReleaseMigration } from "./helm-release-apply.js";
import type { ReleaseMigration } from "./helm-release.js";

const migration = {
  release: { namespace: "web", name: "ingress" },
  imported: {
    crd: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "ingresses.kro.run" },
    },
    rgd: { apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", metadata: { name: "ingress" } },
  },
  instance: { apiVersion: "kro.run/v1alpha1", kind: "Ingress", metadata: { name: "ingress", namespace: "web" } },
  instanceExists: false,
  plan: { adopt: [], create: [] },
} as unknown as ReleaseMigration;

function client(refuse: (kind: string) => string | undefined): { client: KubeClient; writes: string[] } {
  const writes: string[] = [];
  const fake = {
    apply: (object: { kind: string }, options: { dryRun?: boolean }) => {
      writes.push(`${options.dryRun === true ? "dry-run " : ""}${object.kind}`);
      const refusal = refuse(object.kind);
      return refusal === undefined ? Promise.resolve(object) : Promise.reject(new Error(refusal));
    },
    get: () => Promise.reject(new Error("stop here: the test is about what happens before")),
  };
  return { client: fake as unknown as KubeClient, writes };
}

const settings = { timeoutMs: 0, allowRollout: false, removeReleaseRecord: false, log: () => undefined };

describe("applyReleaseMigration preflight", () => {
  it("writes nothing when the API server refuses the imported CRD, and says what it refused", async () => {
    const { client: fake, writes } = client((kind) =>
      kind === "CustomResourceDefinition"
        ? "PATCH …: 422 Invalid: spec.validation.openAPIV3Schema.properties[spec].properties[ports].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
        : undefined,
    );
    await assert.rejects(applyReleaseMigration(fake, migration, settings), (error: unknown) => {
      assert.ok(error instanceof InputError);
      assert.match(error.message, /the API server refuses what the migration of release web\/ingress would write/);
      assert.match(error.message, /CustomResourceDefinition ingresses\.kro\.run: .*uniqueItems/);
      assert.match(error.message, /Nothing was written/);
      return true;
    });
    assert.deepEqual(writes, ["dry-run CustomResourceDefinition", "dry-run ResourceGraphDefinition"]);
  });

  it("goes on to write once both dry runs are accepted", async () => {
    const { client: fake, writes } = client(() => undefined);
    await assert.rejects(applyReleaseMigration(fake, migration, settings), /stop here/);
    assert.deepEqual(writes, [
      "dry-run CustomResourceDefinition",
      "dry-run ResourceGraphDefinition",
      "CustomResourceDefinition",
    ]);
  });
});
