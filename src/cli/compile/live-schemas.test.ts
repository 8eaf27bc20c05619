import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, type KubeClient } from "../../kube/index.js";
import { fetchDocument } from "./live-schemas.js";

/** A client whose getPath answers from a table; a missing path is a 301, as for an outdated hash. */
function clientAnswering(answers: Record<string, unknown>): { client: KubeClient; asked: string[] } {
  const asked: string[] = [];
  const getPath = (path: string): Promise<unknown> => {
    asked.push(path);
    if (path in answers) return Promise.resolve(answers[path]);
    return Promise.reject(new ApiError({ status: 301, verb: "GET", path }));
  };
  return { client: { getPath } as unknown as KubeClient, asked };
}

describe("fetchDocument (openapi v3 under a changing hash)", () => {
  it("returns the hashed document when the hash is current", async () => {
    const { client, asked } = clientAnswering({ "/openapi/v3/apis/kro.run/v1alpha1?hash=A": { v: "A" } });
    assert.deepEqual(await fetchDocument(client, "/openapi/v3/apis/kro.run/v1alpha1?hash=A"), {
      document: { v: "A" },
      stale: false,
    });
    assert.deepEqual(asked, ["/openapi/v3/apis/kro.run/v1alpha1?hash=A"]);
  });

  it("falls back to the current document, marked stale so it is not cached under the old hash", async () => {
    const { client, asked } = clientAnswering({ "/openapi/v3/apis/kro.run/v1alpha1": { v: "B" } });
    assert.deepEqual(await fetchDocument(client, "/openapi/v3/apis/kro.run/v1alpha1?hash=A"), {
      document: { v: "B" },
      stale: true,
    });
    assert.deepEqual(asked, ["/openapi/v3/apis/kro.run/v1alpha1?hash=A", "/openapi/v3/apis/kro.run/v1alpha1"]);
  });

  it("keeps any other error, and a 301 on an unhashed path", async () => {
    const { client } = clientAnswering({});
    await assert.rejects(fetchDocument(client, "/openapi/v3/apis/x/v1"), (e: unknown) => e instanceof ApiError);
  });
});
