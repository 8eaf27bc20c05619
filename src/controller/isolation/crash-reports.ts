/**
 * What tells a crash from a kill, for the crash-loop guard (evaluation-guard.ts). Node writes a
 * diagnostic report when the process dies of a fatal error (V8 out of memory, an internal error)
 * or an uncaught exception; nothing is written when it is killed from outside (kill -9, a node
 * drain, the kernel's OOM killer, a rollout). So each controller process gets an id, asks Node to
 * write such a report as `fatal-<id>.json` into a directory that outlives the process (in the
 * container, /tmp is an emptyDir: it survives container restarts), and marks instances in flight
 * with that id; the next process counts a death against an instance only if the process that
 * marked it left a report.
 *
 * A report holds the whole environment and command line: each one is cut down to its event
 * when the next process starts (before anything reads it), and reports older than a day are
 * removed. The directory is created private (0700).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CrashEvidence } from "./evaluation-guard.js";

/** Where reports go unless `--crash-report-dir` says otherwise. */
export const DEFAULT_CRASH_REPORT_DIR = path.join(tmpdir(), "kro-ts-crash-reports");

const ID = /^[0-9a-f]{12}$/;
const REPORT = /^fatal-([0-9a-f]{12})\.json$/;
const KEEP_MS = 24 * 60 * 60 * 1000;

export interface CrashReports {
  /** This process's id: the name of its report, and the `by` of its in-flight marks. */
  readonly processId: string;
  /** Why the process with this id died, when it left a report. */
  explain(processId: string): CrashEvidence | undefined;
  /** Set when reports cannot be written here (every death then counts as a kill). */
  readonly problem?: string;
}

/** Arms Node's fatal-error report for this process, and tidies what earlier processes left. */
export function armCrashReports(dir: string = DEFAULT_CRASH_REPORT_DIR, now: number = Date.now()): CrashReports {
  const processId = randomBytes(6).toString("hex");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    tidy(dir, now);
    process.report.directory = dir;
    process.report.filename = `fatal-${processId}.json`;
    process.report.compact = true;
    process.report.reportOnFatalError = true;
    process.report.reportOnUncaughtException = true;
  } catch (error) {
    return {
      processId,
      explain: () => undefined,
      problem: `crash reports cannot be written to ${dir}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const known = new Map<string, CrashEvidence | undefined>();
  return {
    processId,
    explain(id) {
      // The id comes from an instance's annotation, which its author can write: never a path.
      if (!ID.test(id) || id === processId) return undefined;
      if (!known.has(id)) known.set(id, readEvidence(path.join(dir, `fatal-${id}.json`)));
      return known.get(id);
    },
  };
}

/** Reports cut down to what the guard needs; old ones removed. Another process's file is never half-written: renamed into place. */
function tidy(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    if (!REPORT.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const { mtimeMs, size } = statSync(file);
      if (now - mtimeMs > KEEP_MS) {
        unlinkSync(file);
        continue;
      }
      // Cut down already (a few dozen bytes): nothing to read.
      if (size < 1024) continue;
      const evidence = readEvidence(file);
      if (evidence === undefined) continue;
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(evidence), { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // Another process tidied it first, or it is not ours to touch: left as is.
    }
  }
}

/** The event of a report, whole (header.event) or cut down (event). */
function readEvidence(file: string): CrashEvidence | undefined {
  try {
    const report = JSON.parse(readFileSync(file, "utf8")) as { header?: { event?: unknown }; event?: unknown };
    // An uncaught error's message may carry instance data: only its kind is kept.
    const event =
      report.header?.event === "Exception" ? "an uncaught exception" : (report.header?.event ?? report.event);
    return typeof event === "string" && event !== "" ? { event: event.slice(0, 200) } : undefined;
  } catch {
    return undefined;
  }
}
