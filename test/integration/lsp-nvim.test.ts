// `kro lsp` driven by a real editor's LSP client: headless Neovim (0.7 or later) runs
// test/data/lsp/nvim-session.lua, which starts the built CLI's server for a YAML buffer, and the
// test reads back what Neovim made of the answers. Neovim counts columns in bytes and converts to
// and from LSP's UTF-16 positions itself, so a line with an emoji before the mistake tells a server
// that counts in bytes or code points from a correct one. Needs no cluster.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { rangeOf } from "../unit-support/lsp/lsp-client.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const SESSION = path.join(ROOT, "test/data/lsp/nvim-session.lua");
const NVIM = process.env.KRO_TEST_NVIM ?? "/usr/bin/nvim";
/** Failure guards only: a healthy session ends as soon as its last answer is in. */
const GUARD_MS = 60_000;

type Cursor = [row: number, byteColumn: number];
type Step =
  | { kind: "diagnostics"; publish: number }
  | { kind: "completion" | "hover" | "definition"; cursor: Cursor }
  | { kind: "edit"; row: number; find: string; replace: string };
interface NvimDiagnostic {
  lnum: number;
  col: number;
  end_lnum: number;
  end_col: number;
  severity: number;
  message: string;
}
interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
interface StepResult {
  kind: string;
  diagnostics?: NvimDiagnostic[];
  published?: { diagnostics: { range: LspRange; message: string; code: string }[] };
  position?: { line: number; character: number };
  items?: { label: string; detail?: string }[];
  hover?: { contents: { kind: string; value: string }; range: LspRange };
  location?: { uri: string; range: LspRange };
  cursor?: Cursor;
  line?: string;
}

/** The 1-based row and 0-based byte column of `needle` (its `occurrence`-th) plus `within` characters. */
function cursorAt(text: string, needle: string, within = 0, occurrence = 0): Cursor {
  const { start } = rangeOf(text, needle, occurrence);
  const line = text.split("\n")[start.line] ?? "";
  return [start.line + 1, Buffer.byteLength(line.slice(0, start.character + within))];
}

/** `needle`'s range as Neovim holds it: 0-based lines, byte columns. */
function bytesOf(text: string, needle: string, end = needle.length): Omit<NvimDiagnostic, "severity" | "message"> {
  const { start } = rangeOf(text, needle);
  const line = text.split("\n")[start.line] ?? "";
  const col = Buffer.byteLength(line.slice(0, start.character));
  return {
    lnum: start.line,
    col,
    end_lnum: start.line,
    end_col: col + Buffer.byteLength(line.slice(start.character, start.character + end)),
  };
}

const list = <T>(value: T[] | Record<string, never> | undefined): T[] => (Array.isArray(value) ? value : []);

describe("kro lsp in Neovim", () => {
  let dir = "";
  before(async () => {
    assert.ok(
      existsSync(NVIM),
      `${NVIM} is missing: install the Debian package neovim (.ci/run does), or set KRO_TEST_NVIM`,
    );
    dir = await mkdtemp(path.join(tmpdir(), "kro-nvim-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs headless Neovim in `dir` until it quits. */
  function nvim(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    // Its own config, state, data and cache folders: no user setup, and the LSP log stays in `dir`.
    const xdg = path.join(dir, "xdg");
    const folders = { XDG_CONFIG_HOME: xdg, XDG_STATE_HOME: xdg, XDG_CACHE_HOME: xdg, XDG_DATA_HOME: xdg };
    return new Promise((resolve) => {
      execFile(
        NVIM,
        ["--headless", "-n", ...args],
        { env: { ...process.env, ...folders, ...env }, timeout: 2 * GUARD_MS, cwd: dir },
        (error, _stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stderr });
        },
      );
    });
  }

  /** Opens `text` as `name` in headless Neovim with `kro lsp` attached, runs `steps`, returns their results. */
  async function session(name: string, text: string, steps: Step[]): Promise<StepResult[]> {
    const file = path.join(dir, name);
    const out = path.join(dir, `${name}.out.json`);
    const sessionFile = path.join(dir, `${name}.session.json`);
    await writeFile(file, text);
    await writeFile(
      sessionFile,
      JSON.stringify({ cmd: [process.execPath, CLI, "lsp"], root: dir, file, out, steps, guard_ms: GUARD_MS }),
    );
    const run = await nvim(["--clean", "-c", `luafile ${SESSION}`], { KRO_NVIM_SESSION: sessionFile });
    const result = JSON.parse(await readFile(out, "utf8").catch(() => "{}")) as {
      error?: string;
      exit_code?: number;
      steps?: StepResult[];
    };
    assert.equal(result.error, undefined, `the Neovim session failed: ${result.error}\n${run.stderr}`);
    assert.equal(run.code, 0, run.stderr);
    // The client's shutdown and exit: the server ends with 0.
    assert.equal(result.exit_code, 0);
    return list(result.steps);
  }

  it("a CEL-dialect RGD: diagnostics, completion, hover, definition, and a fix", async () => {
    const valid = await readFile(path.join(ROOT, "test/data/lsp/webapp-rgd.yaml"), "utf8");
    // A misspelt spec field, and a misspelt id after an emoji (two UTF-16 units, four bytes).
    const text = valid
      .replace("${schema.spec.replicas}", "${schema.spec.replica}")
      .replace("team: ${schema.metadata.labels.deploy}", "team: 🚀 ${depoy.metadata.name} ${schema.metadata.name}");
    // On the emoji's line, a server that took the cursor's units for bytes would read two
    // characters less, and one that took them for code points one more: after `${schema` the
    // first reads a name, the second the fields after `schema.`.
    const emoji = "} ${schema.metadata.name}";
    const replicaRow = cursorAt(text, "${schema.spec.replica}")[0];
    const [opened, specFields, names, schemaFields, metadata, hover, definition, edit, fixed] = await session(
      "webapp.yaml",
      text,
      [
        { kind: "diagnostics", publish: 1 },
        { kind: "completion", cursor: cursorAt(text, "${schema.spec.replica}", "${schema.spec.".length) },
        { kind: "completion", cursor: cursorAt(text, emoji, "} ${schema".length) },
        { kind: "completion", cursor: cursorAt(text, emoji, "} ${schema.".length) },
        { kind: "hover", cursor: cursorAt(text, emoji, "} ${schema.meta".length) },
        { kind: "hover", cursor: cursorAt(text, "${deploy.metadata.name}-", 3) },
        { kind: "definition", cursor: cursorAt(text, "${deploy.metadata.name}-", 3) },
        { kind: "edit", row: replicaRow, find: "replica}", replace: "replicas}" },
        { kind: "diagnostics", publish: 2 },
      ],
    );

    const replica = {
      severity: 1,
      message: 'expression "schema.spec.replica": No such key: replica (did you mean "replicas"?)',
    };
    const depoy = {
      severity: 1,
      message: 'expression "depoy.metadata.name": Unknown variable: depoy (did you mean "deploy"?)',
    };
    // What the server sent, in UTF-16 units…
    assert.deepEqual(
      list(opened?.published?.diagnostics).map((d) => [d.range, d.message]),
      [
        [rangeOf(text, "${schema.spec.replica}"), replica.message],
        [rangeOf(text, "${depoy.metadata.name}"), depoy.message],
      ],
    );
    // …and what Neovim shows, in bytes: the emoji's line differs by two.
    assert.deepEqual(list(opened?.diagnostics), [
      { ...bytesOf(text, "${schema.spec.replica}"), ...replica },
      { ...bytesOf(text, "${depoy.metadata.name}"), ...depoy },
    ]);
    const emojiLine = bytesOf(text, "${depoy.metadata.name}");
    assert.equal(emojiLine.col, rangeOf(text, "${depoy.metadata.name}").start.character + 2);

    assert.deepEqual(
      list(specFields?.items).map((i) => [i.label, i.detail]),
      [
        ["image", "string"],
        ["ingress", "object"],
        ["replicas", "integer"],
      ],
    );
    // Neovim sent the cursor on the emoji's line in UTF-16 units (its byte column is two more).
    const at = rangeOf(text, emoji).start;
    const utf16 = (within: number) => ({ line: at.line, character: at.character + within });
    assert.deepEqual(names?.position, utf16("} ${schema".length));
    // The names of the RGD first, then CEL's namespaces and functions.
    assert.deepEqual(
      list(names.items)
        .slice(0, 3)
        .map((i) => [i.label, i.detail]),
      [
        ["deploy", "Deployment (apps/v1)"],
        ["svc", "Service (v1)"],
        ["schema", "the instance"],
      ],
    );
    assert.ok(list(names.items).some((i) => i.label === "lists" && i.detail === "CEL function namespace"));
    assert.deepEqual(
      list(schemaFields?.items).map((i) => [i.label, i.detail]),
      [
        ["spec", "object"],
        ["metadata", "object"],
      ],
    );
    assert.deepEqual(metadata?.hover, {
      contents: { kind: "markdown", value: "**metadata** `object`" },
      range: { start: utf16("} ${schema.".length), end: utf16("} ${schema.metadata".length) },
    });

    const read = rangeOf(text, "${deploy.metadata.name}-");
    const readId = {
      start: { line: read.start.line, character: read.start.character + 2 },
      end: { line: read.start.line, character: read.start.character + 2 + "deploy".length },
    };
    assert.deepEqual(hover?.hover, {
      contents: { kind: "markdown", value: "**deploy** — resource `Deployment` (apps/v1)" },
      range: readId,
    });

    const id = rangeOf(text, "id: deploy");
    const idRange = {
      start: { line: id.start.line, character: id.start.character + 4 },
      end: id.end,
    };
    assert.deepEqual(definition?.location?.range, idRange);
    // The editor's own go-to-definition put the cursor on the id.
    assert.deepEqual(definition.cursor, cursorAt(text, "id: deploy", 4));

    assert.equal(edit?.line, "          replicas: ${schema.spec.replicas}");
    assert.deepEqual(list(fixed?.diagnostics), [{ ...bytesOf(text, "${depoy.metadata.name}"), ...depoy }]);
  });

  it("a template-dialect RGD: Go template errors where they are, and cleared when fixed", async () => {
    const seed = await readFile(path.join(ROOT, "examples/nginx/nginxapp-rgd.yaml"), "utf8");
    const text = seed
      .replace("replicas: {{.parent.spec.replicas}}", "replicas: {{.parent.spec.replicas}")
      .replace("number: {{$.parent.spec.service.port}}", "number: {{$.parent.spec.service.port | portOf}}");
    const [opened, , fixed] = await session("nginxapp.yaml", text, [
      { kind: "diagnostics", publish: 1 },
      { kind: "edit", row: cursorAt(text, "{{.parent.spec.replicas}\n")[0], find: "replicas}", replace: "replicas}}" },
      { kind: "diagnostics", publish: 2 },
    ]);
    // Each covers the word at the position Go's parser names, to the next space.
    const badBrace = {
      ...bytesOf(text, ".replicas}\n", ".replicas}".length),
      severity: 1,
      message: "template: deployment.template:2: bad character U+007D '}'",
    };
    const portOf = {
      ...bytesOf(text, "portOf}}"),
      severity: 1,
      message: 'template: ingress.template:14: function "portOf" not defined',
    };
    assert.deepEqual(list(opened?.diagnostics), [badBrace, portOf]);
    assert.deepEqual(list(fixed?.diagnostics), [portOf]);
  });

  it("the README's Neovim 0.7 snippet, as an init.lua, attaches `kro` from PATH to YAML files", async () => {
    const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
    const snippet = /\*\*Neovim\*\* 0\.7 and later[^\n]*\n\n```lua\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(snippet !== undefined, "the README has no Neovim 0.7 snippet");
    const init = path.join(dir, "init.lua");
    await writeFile(init, snippet);
    // `kro` on PATH, as `npm link` puts it there.
    const bin = path.join(dir, "bin");
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, "kro"), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
    await chmod(path.join(bin, "kro"), 0o755);
    const seed = await readFile(path.join(ROOT, "test/data/lsp/webapp-rgd.yaml"), "utf8");
    const text = seed.replace("${schema.spec.replicas}", "${schema.spec.replica}");
    await writeFile(path.join(dir, "readme-rgd.yaml"), text);
    const out = path.join(dir, "readme.out.json");
    const check = path.join(dir, "readme-check.lua");
    await writeFile(
      check,
      `local published = vim.wait(${GUARD_MS}, function() return #vim.diagnostic.get(0) > 0 end, 10)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message })
end
local names = {}
for _, client in pairs(vim.lsp.buf_get_clients(0)) do table.insert(names, client.name) end
vim.fn.writefile({ vim.json.encode({ published = published, diagnostics = found, clients = names }) }, ${JSON.stringify(out)})
vim.cmd("qall!")
`,
    );
    const run = await nvim(["-u", init, "readme-rgd.yaml", "-c", `luafile ${check}`], {
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(await readFile(out, "utf8")) as {
      published: boolean;
      clients: string[];
      diagnostics: { lnum: number; col: number; end_col: number; message: string }[];
    };
    const { lnum, col, end_col } = bytesOf(text, "${schema.spec.replica}");
    assert.deepEqual(result, {
      published: true,
      clients: ["kro"],
      diagnostics: [
        {
          lnum,
          col,
          end_col,
          message: 'expression "schema.spec.replica": No such key: replica (did you mean "replicas"?)',
        },
      ],
    });
  });
});
