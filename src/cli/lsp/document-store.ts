/**
 * The editor's open documents, as the editor holds them (unsaved text included): didOpen adds one,
 * didChange replaces or patches its text, didClose forgets it. The server never reads open files
 * from disk.
 */
import { TextDocument, type TextDocumentContentChangeEvent } from "vscode-languageserver-textdocument";

export class DocumentStore {
  readonly #documents = new Map<string, TextDocument>();

  open(uri: string, languageId: string, version: number, text: string): TextDocument {
    const document = TextDocument.create(uri, languageId, version, text);
    this.#documents.set(uri, document);
    return document;
  }

  /** Applies full or ranged changes; undefined for a document that is not open. */
  change(uri: string, version: number, changes: readonly TextDocumentContentChangeEvent[]): TextDocument | undefined {
    const document = this.#documents.get(uri);
    if (document === undefined) return undefined;
    const updated = TextDocument.update(document, [...changes], version);
    this.#documents.set(uri, updated);
    return updated;
  }

  close(uri: string): void {
    this.#documents.delete(uri);
  }

  get(uri: string): TextDocument | undefined {
    return this.#documents.get(uri);
  }

  uris(): string[] {
    return [...this.#documents.keys()];
  }
}
