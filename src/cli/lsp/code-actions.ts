/**
 * Quick fixes for the compiler's "did you mean" (expr/did-you-mean.ts): an unknown variable, key or
 * field that is close to a known one is replaced by it, at the first whole-word occurrence of the
 * unknown name inside the diagnostic's range (the `${…}` or the field the diagnostic underlines).
 * Read from the diagnostic the client sends back, so the fix always matches what is shown.
 */
import { CodeActionKind, type CodeAction, type Diagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";

const UNKNOWN = [/Unknown variable: ([A-Za-z_]\w*)/, /No such key: ([A-Za-z_]\w*)/, /unknown field "([^"]+)"/];
const SUGGESTION = /\(did you mean "([^"]+)"\?\)/;

/** The unknown name and the name meant, when the message says both. */
export function misspelling(message: string): { wrong: string; meant: string } | undefined {
  const meant = SUGGESTION.exec(message)?.[1];
  if (meant === undefined) return undefined;
  for (const pattern of UNKNOWN) {
    const wrong = pattern.exec(message)?.[1];
    if (wrong !== undefined) return { wrong, meant };
  }
  return undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function quickFixes(document: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== "kro") continue;
    const fix = typeof diagnostic.message === "string" ? misspelling(diagnostic.message) : undefined;
    if (fix === undefined) continue;
    const start = document.offsetAt(diagnostic.range.start);
    const within = document.getText(diagnostic.range);
    const at = new RegExp(`(?<![\\w-])${escape(fix.wrong)}(?![\\w-])`).exec(within)?.index;
    if (at === undefined) continue;
    const range = {
      start: document.positionAt(start + at),
      end: document.positionAt(start + at + fix.wrong.length),
    };
    actions.push({
      title: `Change "${fix.wrong}" to "${fix.meant}"`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [document.uri]: [{ range, newText: fix.meant }] } },
    });
  }
  return actions;
}
