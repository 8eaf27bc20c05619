/**
 * Quick fixes for the compiler's "did you mean" (expr/did-you-mean.ts): an unknown variable, key or
 * field that is close to a known one is replaced by it, at the first whole-word occurrence of the
 * unknown name inside the diagnostic's range (the `${…}` or the field the diagnostic underlines).
 * And for the loader's "quote the whole value": a `${…}` with `: ` inside, unquoted, which YAML
 * reads as a key separator — the value of that line is quoted as the hint shows it.
 * Read from the diagnostic the client sends back, so the fix always matches what is shown.
 */
import { CodeActionKind, type CodeAction, type Diagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { unquotedColonExpression } from "../../api/index.js";

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

/** The line of the diagnostic with its value quoted, when the loader asks for that. */
function quoteFix(document: TextDocument, diagnostic: Diagnostic): CodeAction | undefined {
  if (typeof diagnostic.message !== "string" || !diagnostic.message.includes("quote the whole value")) return undefined;
  const { line } = diagnostic.range.start;
  const text = document
    .getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } })
    .replace(/\r?\n$/, "");
  const quoted = unquotedColonExpression(text);
  if (quoted === undefined) return undefined;
  const indent = /^\s*/.exec(text)?.[0].length ?? 0;
  const range = { start: { line, character: indent }, end: { line, character: text.length } };
  return {
    title: "Quote the value",
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: true,
    edit: { changes: { [document.uri]: [{ range, newText: quoted }] } },
  };
}

export function quickFixes(document: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== "kro") continue;
    const quote = quoteFix(document, diagnostic);
    if (quote !== undefined) actions.push(quote);
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
