// `kro ui` off loopback would show the kubeconfig user's view to anyone: it is refused unless
// asked for, and then said loudly.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { exposureWarning } from "./ui-command.js";

const CLI = path.join(fileURLToPath(new URL("..", import.meta.url)), "main.js");

describe("kro ui exposure", () => {
  it("the warning is silent on loopback and loud anywhere else", () => {
    for (const quiet of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
      assert.equal(exposureWarning(quiet), undefined, quiet);
    for (const open of ["0.0.0.0", "::", "[::]", "192.168.1.10", "my-host"])
      assert.match(exposureWarning(open) ?? "", /WARNING: listening on .*anyone who can reach this address/, open);
  });

  it("refuses a non-loopback --address without --allow-remote, before reading any credentials", async () => {
    const run = promisify(execFile)(
      process.execPath,
      [CLI, "ui", "--address", "0.0.0.0", "--port", "0", "--kubeconfig", "/nonexistent/kubeconfig"],
      { timeout: 60_000 },
    );
    const failure = await run.then(
      () => undefined,
      (error: unknown) => error as { code?: number; stderr?: string },
    );
    assert.ok(failure !== undefined, "kro ui must not start");
    assert.notEqual(failure.code, 0);
    assert.match(failure.stderr ?? "", /refusing to listen on 0\.0\.0\.0: .*--allow-remote/);
    assert.doesNotMatch(failure.stderr ?? "", /nonexistent/, "refused before the kubeconfig is read");
  });
});
