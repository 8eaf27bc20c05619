import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadBuiltinSchemas } from "./builtin-schemas.js";

describe("loadBuiltinSchemas", () => {
  it("reads a minor's bundle once per process: later callers share its resolver", async () => {
    const first = await loadBuiltinSchemas("1.33");
    assert.equal(first.resolve("apps/v1", "Deployment")?.namespaced, true);
    assert.equal(await loadBuiltinSchemas("1.33"), first);
    assert.notEqual(await loadBuiltinSchemas("1.32"), first);
  });
});
