// `kro ui` off loopback shows the kubeconfig user's view to anyone: it says so.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exposureWarning } from "./ui-command.js";

describe("kro ui exposure warning", () => {
  it("is silent on loopback and loud anywhere else", () => {
    for (const quiet of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
      assert.equal(exposureWarning(quiet), undefined, quiet);
    for (const open of ["0.0.0.0", "::", "[::]", "192.168.1.10", "my-host"])
      assert.match(exposureWarning(open) ?? "", /WARNING: listening on .*anyone who can reach this address/, open);
  });
});
