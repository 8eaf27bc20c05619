/**
 * The line `kro dev` prints once every instance has settled — "all Ready", or which are not and
 * why — printed again only when it changes. Pure.
 */
import type { Verdict } from "./dev-state.js";

/** The verdict line, or undefined while something is still converging (or nothing is tracked). */
export function verdictLine(verdict: Verdict, subject: string): string | undefined {
  if (!verdict.settled || verdict.total === 0) return undefined;
  const head =
    verdict.ready === verdict.total
      ? `kro-ts: all ${subject} Ready`
      : `kro-ts: ${verdict.ready} of ${verdict.total} ${subject} Ready; not Ready:\n${verdict.notReady.map((l) => `  ${l}`).join("\n")}`;
  return head + verdict.rgdProblems.map((p) => `\n  but ${p}`).join("");
}

/** Remembers the last line printed: `next` answers the line to print now, if any. */
export class VerdictPrinter {
  private printed = "";

  constructor(private readonly subject: string) {}

  next(verdict: Verdict): string | undefined {
    const line = verdictLine(verdict, this.subject);
    if (line === undefined || line === this.printed) return undefined;
    this.printed = line;
    return line;
  }

  /** The files changed: the next settled verdict is printed even if it reads the same. */
  reset(): void {
    this.printed = "";
  }
}
