// Kubernetes CEL typing end to end: a Job's date-time field is a timestamp at compile time
// (`!= null`, getFullYear(), subtraction to a duration) and at runtime, because observed
// objects convert with their kind's value schema, as kro converts with ResourceSchemas.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateInstance } from "./evaluate.js";
import { buildInstanceStatus } from "./status.js";
import { compileValue, instanceOf } from "../../test/unit-support/runtime/fixtures.js";
import { createMemoryLookup } from "./memory-lookup.js";
import type { KubeJson } from "./types.js";

const graph = compileValue({
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: { name: "typed" },
  spec: {
    schema: {
      apiVersion: "v1alpha1",
      kind: "TypedApp",
      spec: { name: "string | default=job" },
      status: {
        done: "${job.status.completionTime != null}",
        year: "${job.status.?completionTime.orValue(timestamp('1970-01-01T00:00:00Z')).getFullYear()}",
        tookSeconds:
          "${job.status.?completionTime.hasValue() ? (job.status.completionTime - job.status.startTime).getSeconds() : -1}",
        finished: "${job.status.completionTime}",
      },
    },
    resources: [
      {
        id: "job",
        template: {
          apiVersion: "batch/v1",
          kind: "Job",
          metadata: { name: "${schema.spec.name}" },
          spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
        },
      },
    ],
  },
});

function statusWith(jobStatus: KubeJson | undefined): Record<string, unknown> {
  const instance = instanceOf(graph, { name: "job" });
  const lookup = createMemoryLookup();
  const first = evaluateInstance(graph, instance, lookup);
  lookup.put(...first.apply.map((o) => (jobStatus === undefined ? o : { ...o, status: jobStatus })));
  return buildInstanceStatus(graph, instance, evaluateInstance(graph, instance, lookup), {
    now: "2026-01-01T00:00:00Z",
  });
}

describe("timestamps from date-time fields", () => {
  it("compile: the Job node carries the value schema of its date-time fields", () => {
    const job = graph.nodes.find((n) => n.id === "job");
    assert.deepEqual(job?.valueSchema?.properties?.status?.properties?.completionTime, {
      type: "string",
      format: "date-time",
    });
  });

  it("runtime: a finished Job gives a timestamp (null comparison, getFullYear, subtraction) and writes it back as RFC 3339", () => {
    const status = statusWith({ startTime: "2025-06-01T10:00:00Z", completionTime: "2025-06-01T10:02:05Z" });
    assert.equal(status.done, true);
    assert.equal(status.year, 2025);
    assert.equal(status.tookSeconds, 125);
    assert.equal(status.finished, "2025-06-01T10:02:05Z");
  });

  it("runtime: a running Job has no completionTime: the optional path falls back", () => {
    const status = statusWith({ startTime: "2025-06-01T10:00:00Z" });
    assert.equal(status.year, 1970);
    assert.equal(status.tookSeconds, -1);
  });
});
