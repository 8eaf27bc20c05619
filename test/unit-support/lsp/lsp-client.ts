/**
 * The editor's side of an LSP conversation, for tests: requests and notifications over a pair of
 * streams (a spawned `kro lsp`'s stdio, or in-memory pipes), and the diagnostics the server
 * publishes, handed out in order per document.
 */
import type { Readable, Writable } from "node:stream";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import type { Diagnostic } from "vscode-languageserver/node";

export interface Published {
  readonly uri: string;
  readonly version?: number;
  readonly diagnostics: Diagnostic[];
}

export class LspClient {
  readonly connection;
  readonly #published: Published[] = [];
  readonly #waiters: { uri: string; resolve: (p: Published) => void }[] = [];

  constructor(input: Readable, output: Writable) {
    this.connection = createMessageConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
    this.connection.onNotification("textDocument/publishDiagnostics", (params: Published) => {
      const waiter = this.#waiters.findIndex((w) => w.uri === params.uri);
      if (waiter >= 0) this.#waiters.splice(waiter, 1)[0]?.resolve(params);
      else this.#published.push(params);
    });
    this.connection.listen();
  }

  /** The next diagnostics published for `uri` (already received ones first). */
  nextDiagnostics(uri: string): Promise<Published> {
    const index = this.#published.findIndex((p) => p.uri === uri);
    if (index >= 0) return Promise.resolve(this.#published.splice(index, 1)[0] as Published);
    return new Promise((resolve) => this.#waiters.push({ uri, resolve }));
  }

  /** Diagnostics received and not yet taken. */
  pending(): readonly Published[] {
    return this.#published;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.connection.sendRequest<T>(method, params);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  async initialize(): Promise<{ capabilities: Record<string, unknown> }> {
    const result = await this.request<{ capabilities: Record<string, unknown> }>("initialize", {
      processId: null,
      rootUri: null,
      capabilities: {},
    });
    await this.notify("initialized", {});
    return result;
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    return this.notify("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version, text } });
  }

  change(uri: string, text: string, version: number): Promise<void> {
    return this.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
  }
}

/** The LSP range of the `occurrence`-th (0-based) appearance of `needle` in `text`. */
export function rangeOf(
  text: string,
  needle: string,
  occurrence = 0,
): { start: { line: number; character: number }; end: { line: number; character: number } } {
  let offset = -1;
  for (let n = 0; n <= occurrence; n++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset < 0) throw new Error(`${JSON.stringify(needle)} appears fewer than ${occurrence + 1} times`);
  }
  return { start: positionOf(text, offset), end: positionOf(text, offset + needle.length) };
}

/** The LSP range of `length` characters from `offset`. */
export function rangeAt(
  text: string,
  offset: number,
  length: number,
): { start: { line: number; character: number }; end: { line: number; character: number } } {
  return { start: positionOf(text, offset), end: positionOf(text, offset + length) };
}

export function positionOf(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length - 1;
  return { line, character: offset - (before.lastIndexOf("\n") + 1) };
}
