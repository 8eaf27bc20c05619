// `kro lsp` as an editor sees it: the real process over stdio, one whole conversation.
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { CompletionItem, Location } from "vscode-languageserver/node";
import { LspClient, rangeAt, rangeOf } from "../../../test/unit-support/lsp/lsp-client.js";

const CLI = fileURLToPath(new URL("../main.js", import.meta.url));
const VALID = readFileSync(new URL("../../../../test/data/lsp/webapp-rgd.yaml", import.meta.url), "utf8");
// Two mistakes: a field the spec does not have, and a misspelt id in a value holding two ${…}.
const BROKEN = VALID.replace("${schema.spec.replicas}", "${schema.spec.replica}").replace(
  "${deploy.metadata.name}-",
  "${depoy.metadata.name}-",
);
const URI = "file:///work/webapp-rgd.yaml";

describe("kro lsp over stdio", () => {
  let child: ChildProcessWithoutNullStreams;
  let client: LspClient;
  let exited: Promise<number | null>;
  before(() => {
    child = spawn(process.execPath, [CLI, "lsp"], { stdio: ["pipe", "pipe", "pipe"] });
    exited = new Promise((resolve) =>
      child.on("exit", (code) => {
        resolve(code);
      }),
    );
    client = new LspClient(child.stdout, child.stdin);
  });
  after(() => {
    client.connection.dispose();
    if (child.exitCode === null) child.kill();
  });

  it("initializes with what it can do", async () => {
    const { capabilities } = await client.initialize();
    assert.equal(capabilities.definitionProvider, true);
    assert.equal(capabilities.referencesProvider, true);
    assert.deepEqual(capabilities.completionProvider, { triggerCharacters: [".", "{"] });
    assert.equal(capabilities.hoverProvider, true);
    assert.deepEqual(capabilities.codeActionProvider, { codeActionKinds: ["quickfix"] });
  });

  it("publishes the compiler's errors on open, at exact ranges", async () => {
    await client.open(URI, BROKEN);
    const { version, diagnostics } = await client.nextDiagnostics(URI);
    assert.equal(version, 1);
    // A CEL error underlines the `${…}` its message names, not the whole value.
    const replicas = rangeOf(BROKEN, "${schema.spec.replica}");
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.code, d.range, d.message]),
      [
        [
          1,
          "expr.type-error",
          replicas,
          'expression "schema.spec.replica": No such key: replica (did you mean "replicas"?)',
        ],
        [
          1,
          "expr.type-error",
          rangeOf(BROKEN, "${depoy.metadata.name}"),
          'expression "depoy.metadata.name": Unknown variable: depoy (did you mean "deploy"?)',
        ],
      ],
    );
  });

  it("offers the name meant as a quick fix for each misspelling", async () => {
    const diagnostics = [
      {
        range: rangeOf(BROKEN, "${depoy.metadata.name}"),
        severity: 1,
        source: "kro",
        message: 'expression "depoy.metadata.name": Unknown variable: depoy (did you mean "deploy"?)',
      },
    ];
    const actions = await client.request<{ title: string; edit: { changes: Record<string, unknown[]> } }[]>(
      "textDocument/codeAction",
      { textDocument: { uri: URI }, range: diagnostics[0]?.range, context: { diagnostics } },
    );
    const depoy = rangeAt(BROKEN, BROKEN.indexOf("${depoy.") + 2, 5);
    assert.deepEqual(
      actions.map((a) => [a.title, a.edit.changes[URI]]),
      [['Change "depoy" to "deploy"', [{ range: depoy, newText: "deploy" }]]],
    );
  });

  it("clears them once a change fixes the text", async () => {
    await client.change(URI, VALID, 2);
    const { version, diagnostics } = await client.nextDiagnostics(URI);
    assert.equal(version, 2);
    assert.deepEqual(diagnostics, []);
  });

  /** Where `deploy` is written: in `id: deploy`, and as the root of each read, in source order. */
  const ID = rangeAt(VALID, VALID.indexOf("id: deploy") + 4, 6);
  const READS = [...VALID.matchAll(/\$\{deploy\./g)].map((m) => rangeAt(VALID, m.index + 2, 6));

  it("goes from a resource id in ${…} to its id:", async () => {
    assert.equal(READS.length, 3);
    for (const read of READS) {
      const found = await client.request<Location>("textDocument/definition", {
        textDocument: { uri: URI },
        position: { line: read.start.line, character: read.start.character + 2 },
      });
      assert.deepEqual(found, { uri: URI, range: ID });
    }
  });

  it("finds every read of a resource id, from its id: or from a read", async () => {
    for (const from of [ID, ...READS.slice(2)]) {
      const found = await client.request<Location[]>("textDocument/references", {
        textDocument: { uri: URI },
        position: from.start,
        context: { includeDeclaration: true },
      });
      assert.deepEqual(
        found.map((l) => l.range),
        [ID, ...READS],
      );
    }
  });

  it("completes schema.spec fields inside ${…}", async () => {
    const edited = VALID.replace("image: ${schema.spec.image}", "image: ${schema.spec.");
    await client.change(URI, edited, 3);
    const at = rangeOf(edited, "image: ${schema.spec.").end;
    const items = await client.request<CompletionItem[]>("textDocument/completion", {
      textDocument: { uri: URI },
      position: at,
    });
    assert.deepEqual(
      items.map((i) => [i.label, i.detail]),
      [
        ["image", "string"],
        ["ingress", "object"],
        ["replicas", "integer"],
      ],
    );
  });

  it("hovers a resource id with its kind, at the id's range", async () => {
    const read = READS[0];
    assert.ok(read !== undefined);
    const hover = await client.request<{ contents: { kind: string; value: string }; range: unknown }>(
      "textDocument/hover",
      { textDocument: { uri: URI }, position: { line: read.start.line, character: read.start.character + 1 } },
    );
    assert.deepEqual(hover, {
      contents: { kind: "markdown", value: "**deploy** — resource `Deployment` (apps/v1)" },
      range: read,
    });
  });

  it("shuts down and exits with 0", async () => {
    await client.request("shutdown", null);
    await client.notify("exit", null);
    assert.equal(await exited, 0);
  });
});
