import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { armCrashReports } from "./crash-reports.js";

const moduleUrl = new URL("./crash-reports.js", import.meta.url).href;
const dirs: string[] = [];
const freshDir = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), "kro-crash-reports-"));
  dirs.push(dir);
  return path.join(dir, "reports");
};

/** A real node process that arms the reports, prints its id, then dies as told. */
function processThat(dir: string, death: "oom" | "throw" | "kill"): Promise<string> {
  const die = {
    oom: "const hold = []; for (;;) hold.push(new Array(100000).fill(hold.length + 0.5));",
    throw: "setTimeout(() => { throw new Error('a bug'); }, 5);",
    kill: "process.kill(process.pid, 'SIGKILL');",
  }[death];
  const script = `const m = await import(${JSON.stringify(moduleUrl)}); const r = m.armCrashReports(${JSON.stringify(dir)}); console.log(r.processId); ${die}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=32", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, KRO_SECRET_FOR_TEST: "hunter2" },
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) reject(new Error("the process was meant to die"));
      else if (death === "kill" && signal !== "SIGKILL") reject(new Error(`killed by ${String(signal)}`));
      else resolve(out.trim());
    });
  });
}

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("crash reports", () => {
  it("tell an out-of-memory and an uncaught error from a kill, for the process that died", async () => {
    const dir = freshDir();
    const oom = await processThat(dir, "oom");
    const thrown = await processThat(dir, "throw");
    const killed = await processThat(dir, "kill");
    for (const id of [oom, thrown, killed]) assert.match(id, /^[0-9a-f]{12}$/);
    const next = armCrashReports(dir);
    assert.equal(next.problem, undefined);
    assert.match(next.explain(oom)?.event ?? "", /heap out of memory/);
    assert.equal(next.explain(thrown)?.event, "an uncaught exception");
    assert.equal(next.explain(killed), undefined, "a kill leaves nothing to blame");
    assert.equal(next.explain(next.processId), undefined, "this process is alive");
  });

  it("cuts a report down to its event before anything reads it: no environment, no command line", async () => {
    const dir = freshDir();
    const oom = await processThat(dir, "oom");
    const file = path.join(dir, `fatal-${oom}.json`);
    assert.match(readFileSync(file, "utf8"), /hunter2/, "Node's report holds the environment");
    armCrashReports(dir);
    const kept = readFileSync(file, "utf8");
    assert.doesNotMatch(kept, /hunter2|max-old-space-size/);
    assert.deepEqual(Object.keys(JSON.parse(kept) as object), ["event"]);
    assert.equal(statSync(dir).mode & 0o777, 0o700, "the directory is private");
  });

  it("never reads a path an instance's annotation names, and forgets reports older than a day", () => {
    const dir = freshDir();
    const reports = armCrashReports(dir);
    writeFileSync(path.join(path.dirname(dir), "fatal-x.json"), JSON.stringify({ event: "planted" }));
    for (const id of ["../fatal-x", "/etc/passwd", "ABCDEF012345", "0123456789ab/../x", ""])
      assert.equal(reports.explain(id), undefined, id);
    const old = path.join(dir, "fatal-0123456789ab.json");
    writeFileSync(old, JSON.stringify({ event: "long ago" }));
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    const recent = path.join(dir, "fatal-ba9876543210.json");
    writeFileSync(recent, JSON.stringify({ event: "just now" }));
    const next = armCrashReports(dir);
    assert.deepEqual(readdirSync(dir).sort(), ["fatal-ba9876543210.json"]);
    assert.equal(next.explain("0123456789ab"), undefined);
    assert.deepEqual(next.explain("ba9876543210"), { event: "just now" });
  });

  it("says so when reports cannot be written, and then explains nothing", () => {
    const parent = path.dirname(freshDir());
    const blocked = path.join(parent, "a-file");
    writeFileSync(blocked, "");
    chmodSync(blocked, 0o400);
    const reports = armCrashReports(path.join(blocked, "reports"));
    assert.match(reports.problem ?? "", /crash reports cannot be written to .*a-file/);
    assert.equal(reports.explain("0123456789ab"), undefined);
  });
});
