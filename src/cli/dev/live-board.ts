/**
 * The live progress of `kro dev` / `kro demo`: one block per instance (its state, then each
 * resource with what it waits on). On a terminal the block is redrawn in place; elsewhere (CI,
 * pipes, tests) every change is one plain, timestamped line, so logs read as a story:
 *   [00:07] webapp/demo deploy: applied, waiting for readiness
 */

export interface BoardResource {
  readonly id: string;
  readonly text: string;
}

export interface BoardRow {
  /** e.g. "webapp/demo" (kind in lower case / instance name). */
  readonly label: string;
  /** The instance's own line: its state and why it is not Ready yet. */
  readonly summary: string;
  readonly resources: readonly BoardResource[];
}

/** `[mm:ss]` since the session started. */
export function clock(elapsedMs: number): string {
  const seconds = Math.max(0, Math.floor(elapsedMs / 1000));
  return `[${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}]`;
}

/** The lines of the in-place block (terminal mode). */
export function blockLines(rows: readonly BoardRow[]): string[] {
  const width = Math.max(0, ...rows.flatMap((r) => r.resources.map((x) => x.id.length)));
  return rows.flatMap((row) => [
    `${row.label}: ${row.summary}`,
    ...row.resources.map((r) => `  ${r.id.padEnd(width)}  ${r.text}`),
  ]);
}

/** Plain-line mode: the facts (instance summary or one resource) that changed since `before`. */
export function changedFacts(before: ReadonlyMap<string, string>, rows: readonly BoardRow[]): Map<string, string> {
  const changed = new Map<string, string>();
  for (const row of rows) {
    const facts: [string, string][] = [
      [row.label, row.summary],
      ...row.resources.map((r): [string, string] => [`${row.label} ${r.id}`, r.text]),
    ];
    for (const [subject, text] of facts) if (before.get(subject) !== text) changed.set(subject, text);
  }
  return changed;
}

export interface LiveBoardOptions {
  readonly stream: NodeJS.WriteStream;
  /** Redraw in place (default: the stream is a terminal). */
  readonly interactive?: boolean;
  readonly startedAt?: number;
}

export class LiveBoard {
  private readonly stream: NodeJS.WriteStream;
  private interactive: boolean;
  private readonly startedAt: number;
  private drawn = 0;
  private readonly facts = new Map<string, string>();

  constructor(options: LiveBoardOptions) {
    this.stream = options.stream;
    this.interactive = options.interactive ?? options.stream.isTTY;
    this.startedAt = options.startedAt ?? Date.now();
  }

  show(rows: readonly BoardRow[]): void {
    const changed = changedFacts(this.facts, rows);
    for (const [subject, text] of changed) this.facts.set(subject, text);
    if (!this.interactive) {
      const stamp = clock(Date.now() - this.startedAt);
      for (const [subject, text] of changed) this.stream.write(`${stamp} ${subject}: ${text}\n`);
      return;
    }
    if (changed.size === 0) return;
    this.redraw(blockLines(rows));
  }

  /** Prints a message above the block (terminal) or as a line (elsewhere). */
  note(message: string): void {
    if (this.interactive) this.clear();
    this.stream.write(`${message}\n`);
    if (this.interactive) this.facts.clear(); // the next show() draws the block again below the message
  }

  /**
   * From now on report changes as plain lines, also on a terminal: the block stays where it is
   * and the usage text printed below it is never overwritten.
   */
  freeze(): void {
    this.interactive = false;
    this.drawn = 0;
  }

  private clear(): void {
    if (this.drawn > 0) this.stream.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private redraw(lines: readonly string[]): void {
    const columns = this.stream.columns > 0 ? this.stream.columns : 120;
    this.clear();
    // Lines are cut to the terminal width: a wrapped line would break the cursor arithmetic.
    const fitted = lines.map((l) => (l.length >= columns ? `${l.slice(0, Math.max(0, columns - 2))}…` : l));
    this.stream.write(`${fitted.join("\n")}\n`);
    this.drawn = fitted.length;
  }
}
