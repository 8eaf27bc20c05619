/**
 * The language server's wiring: the LSP lifecycle, the open documents, diagnostics (at once on
 * open, debounced on change), definition, references and completion. Transport-free: it is handed
 * a connection (stdio in `kro lsp`, in-memory streams in tests) and a clock.
 */
import {
  CodeActionKind,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type Location,
  type Range,
} from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { SourceSpan } from "../../api/index.js";
import type { KroCelEnvironment } from "../../expr/index.js";
import type { CompileRgdOptions, SchemaResolver } from "../../graph/index.js";
import { celFunctionCatalog, type CelFunctionCatalog } from "./cel-functions.js";
import { analyze, type Analysis } from "./analysis.js";
import { completionItems } from "./completion.js";
import { simpleSchemaItems } from "./simple-schema-completion.js";
import { templateCompletionItems } from "./template-completion.js";
import { templateKeyItems } from "./template-keys.js";
import { hoverAt, toHover } from "./hover.js";
import { quickFixes } from "./code-actions.js";
import { toDiagnostics } from "./diagnostics.js";
import { DocumentStore } from "./document-store.js";
import { definitionAt, referencesAt } from "./navigation.js";
import { rgdAt, type RgdIndex } from "./rgd-index.js";
import type { RgdScope } from "./rgd-scope.js";
import { Debouncer, type Timers } from "./timers.js";
import { definedCrds, WorkspaceSchemas } from "./workspace-schemas.js";

export interface ServerOptions {
  /** How documents are compiled: the schema resolver, the CEL environment, unknown kinds. */
  readonly compile: CompileRgdOptions & { readonly resolver: SchemaResolver; readonly env: KroCelEnvironment };
  readonly timers: Timers;
  /** Quiet time after the last change before a document is compiled again. */
  readonly debounceMs: number;
}

export const CAPABILITIES: InitializeResult["capabilities"] = {
  textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Full },
  definitionProvider: true,
  referencesProvider: true,
  completionProvider: { triggerCharacters: [".", "{"] },
  hoverProvider: true,
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
};

class LanguageServer {
  readonly #store = new DocumentStore();
  /** The analysis of each open document's latest compiled version, and the schemas' generation it saw. */
  readonly #analyses = new Map<string, { analysis: Analysis; generation: number }>();
  /** Kinds the open documents define, over the server's own schema sources. */
  readonly #schemas: WorkspaceSchemas;
  /** The last analysis of each document that held an RGD: completion while the YAML is broken. */
  readonly #lastWithRgd = new Map<string, Analysis>();
  readonly #debouncer: Debouncer;
  readonly #functions: CelFunctionCatalog;

  constructor(
    private readonly connection: Connection,
    private readonly options: ServerOptions,
  ) {
    this.#debouncer = new Debouncer(options.timers, options.debounceMs);
    this.#functions = celFunctionCatalog(options.compile.env);
    this.#schemas = new WorkspaceSchemas(options.compile.resolver);
  }

  /** The analysis of the document's current text, compiled now if it or the schemas changed since. */
  analysisOf(document: TextDocument): Analysis {
    const cached = this.#analyses.get(document.uri);
    const generation = this.#schemas.generation;
    if (cached?.analysis.version === document.version && cached.generation === generation) return cached.analysis;
    const compile = { ...this.options.compile, resolver: this.#schemas.resolver };
    const analysis = analyze(document.uri, document.version, document.getText(), compile);
    this.#analyses.set(document.uri, { analysis, generation });
    if (analysis.rgds.length > 0) this.#lastWithRgd.set(document.uri, analysis);
    return analysis;
  }

  scopeOf(rgd: RgdIndex): RgdScope {
    return { rgd, resolver: this.#schemas.resolver, env: this.options.compile.env, functions: this.#functions };
  }

  /**
   * Compiles the document and publishes its diagnostics. When the kinds it defines changed (a CRD
   * edited, an RGD's schema), every open document is checked again against them, once: those
   * re-checks do not start another round.
   */
  publish(uri: string, recheckOthers = true): void {
    const document = this.#store.get(uri);
    if (document === undefined) return;
    const analysis = this.analysisOf(document);
    const crds = definedCrds(analysis);
    if (recheckOthers && crds !== undefined && this.#schemas.update(uri, crds)) {
      this.recheckAll();
      return;
    }
    void this.connection.sendDiagnostics({
      uri,
      version: document.version,
      diagnostics: toDiagnostics(analysis, document),
    });
  }

  recheckAll(): void {
    for (const open of this.#store.uris()) this.publish(open, false);
  }

  listen(): void {
    const { connection } = this;
    connection.onInitialize(() => ({ capabilities: CAPABILITIES, serverInfo: { name: "kro lsp" } }));
    connection.onDidOpenTextDocument(({ textDocument: t }) => {
      this.#store.open(t.uri, t.languageId, t.version, t.text);
      this.publish(t.uri);
    });
    connection.onDidChangeTextDocument(({ textDocument: t, contentChanges }) => {
      if (this.#store.change(t.uri, t.version, contentChanges) === undefined) return;
      this.#debouncer.schedule(t.uri, () => {
        this.publish(t.uri);
      });
    });
    connection.onDidCloseTextDocument(({ textDocument: t }) => {
      this.#debouncer.cancel(t.uri);
      this.#store.close(t.uri);
      this.#analyses.delete(t.uri);
      this.#lastWithRgd.delete(t.uri);
      void connection.sendDiagnostics({ uri: t.uri, diagnostics: [] });
      if (this.#schemas.update(t.uri, [])) this.recheckAll();
    });
    connection.onDefinition(({ textDocument, position }) => {
      const document = this.#store.get(textDocument.uri);
      if (document === undefined) return null;
      const span = definitionAt(this.analysisOf(document), document.offsetAt(position));
      return span === undefined ? null : location(document, span);
    });
    connection.onReferences(({ textDocument, position, context }) => {
      const document = this.#store.get(textDocument.uri);
      if (document === undefined) return [];
      const spans = referencesAt(this.analysisOf(document), document.offsetAt(position), context.includeDeclaration);
      return spans.map((span) => location(document, span));
    });
    connection.onHover(({ textDocument, position }) => {
      const document = this.#store.get(textDocument.uri);
      if (document === undefined) return null;
      const offset = document.offsetAt(position);
      const rgd = rgdAt(this.analysisOf(document).rgds, offset);
      const answer = rgd === undefined ? undefined : hoverAt(this.scopeOf(rgd), document.getText(), offset);
      return answer === undefined ? null : toHover(answer, rangeOf(document, answer.span));
    });
    connection.onCodeAction(({ textDocument, context }) => {
      const document = this.#store.get(textDocument.uri);
      return document === undefined ? [] : quickFixes(document, context.diagnostics);
    });
    connection.onCompletion(({ textDocument, position }) => {
      const document = this.#store.get(textDocument.uri);
      if (document === undefined) return [];
      const current = this.analysisOf(document);
      const rgds = (current.rgds.length > 0 ? current : this.#lastWithRgd.get(document.uri))?.rgds ?? [];
      const rgd = rgdAt(rgds, document.offsetAt(position));
      if (rgd === undefined) return [];
      const linePrefix = document.getText({ start: { line: position.line, character: 0 }, end: position });
      const offset = document.offsetAt(position);
      if (rgd.dialect === "template") return templateCompletionItems(this.scopeOf(rgd), linePrefix, offset) ?? [];
      const inExpression = completionItems(this.scopeOf(rgd), linePrefix, offset);
      if (inExpression.length > 0) return inExpression;
      const inSchema = simpleSchemaItems(rgd, linePrefix, offset);
      if (inSchema.length > 0) return inSchema;
      const cursor = { text: document.getText(), line: position.line, linePrefix, offset };
      return templateKeyItems(rgd, this.#schemas.resolver, cursor);
    });
    connection.listen();
  }
}

function rangeOf(document: TextDocument, span: SourceSpan): Range {
  return { start: document.positionAt(span.start), end: document.positionAt(span.end) };
}

function location(document: TextDocument, span: SourceSpan): Location {
  return { uri: document.uri, range: rangeOf(document, span) };
}

/** Wires the handlers onto `connection` and starts listening. */
export function startLanguageServer(connection: Connection, options: ServerOptions): void {
  new LanguageServer(connection, options).listen();
}
