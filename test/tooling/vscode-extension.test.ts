// The VS Code extension as `npm run build:vscode` packages it: the .vsix is read back with a zip
// reader of its own (not the packager's), its entry file is loaded the way VS Code loads it (only
// `vscode` provided from outside, by the fake in test/data/vscode/), the server command it computes
// from its settings is run, and it is activated: the bundled language client starts the real
// server, restarts it when the settings change, and stops it.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import Module from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inflateRawSync } from "node:zlib";
import { LspClient } from "../unit-support/lsp/lsp-client.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const run = promisify(execFile);

/** The entries of a zip archive by name (stored or deflated), read from its central directory. */
function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, "no end of central directory record");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, "central directory entry");
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    assert.equal(zip.readUInt32LE(local), 0x04034b50, `local header of ${name}`);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(data, data + size);
    assert.ok(method === 0 || method === 8, `${name}: compression method ${method}`);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at += 46 + skip;
  }
  return entries;
}

interface Executable {
  command: string;
  args?: string[];
}
interface Extension {
  activate(context: { subscriptions: unknown[] }): Promise<void>;
  deactivate(): Promise<void>;
  serverOptions(settings: { get(key: string): unknown }): Executable;
  CLIENT_OPTIONS: { documentSelector: unknown };
}

const settings = (values: Record<string, unknown>) => ({ get: (key: string) => values[key] });

describe("the VS Code extension (.vsix)", () => {
  let dir = "";
  let entries = new Map<string, Buffer>();
  const text = (name: string) => {
    const entry = entries.get(name);
    assert.ok(entry !== undefined, `${name} is missing from the .vsix`);
    return entry.toString("utf8");
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "kro-vsix-"));
    const vsix = path.join(dir, "kro.vsix");
    await run(process.execPath, [path.join(ROOT, "scripts/build-vscode.mjs"), "--out", vsix], { cwd: ROOT });
    entries = unzip(await readFile(vsix));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("holds the packaging parts and the bundled extension, nothing else", () => {
    assert.deepEqual(
      [...entries.keys()].sort(),
      [
        "[Content_Types].xml",
        "extension.vsixmanifest",
        "extension/dist/extension.js",
        "extension/package.json",
        "extension/readme.md",
      ].sort(),
    );
    const types = text("[Content_Types].xml");
    for (const extension of [".vsixmanifest", ".json", ".md", ".js"]) {
      assert.ok(types.includes(`Extension="${extension}"`), `no content type for ${extension}`);
    }
  });

  it("names the extension, its publisher and the project's version in the manifest", async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const manifest = text("extension.vsixmanifest");
    assert.match(manifest, new RegExp(`<Identity Language="en-US" Id="kro" Version="${version}" Publisher="kro-ts"`));
    assert.match(manifest, /<Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension\/package.json"/);
    const pkg = JSON.parse(text("extension/package.json")) as {
      name: string;
      version: string;
      main: string;
      activationEvents: string[];
      dependencies?: unknown;
      contributes: { configuration: { properties: Record<string, { default: unknown }> } };
    };
    assert.equal(pkg.version, version);
    // The README installs the file `npm run build:vscode` writes by default.
    const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
    assert.ok(readme.includes(`code --install-extension dist/vscode/${pkg.name}-${pkg.version}.vsix`));
    assert.equal(path.posix.join("extension", pkg.main), "extension/dist/extension.js");
    assert.deepEqual(pkg.activationEvents, ["onLanguage:yaml"]);
    // Nothing to install next to it: the bundle carries vscode-languageclient.
    assert.equal(pkg.dependencies, undefined);
    const properties = pkg.contributes.configuration.properties;
    assert.deepEqual(Object.fromEntries(Object.entries(properties).map(([key, p]) => [key, p.default])), {
      "kro.path": "kro",
      "kro.args": [],
      "kro.trace.server": "off",
    });
  });

  describe("its entry file, loaded as VS Code loads it", () => {
    let extension: Extension;
    const required = new Set<string>();
    before(async () => {
      const unpacked = path.join(dir, "unpacked");
      const entry = path.join(unpacked, "extension/dist/extension.js");
      await mkdir(path.dirname(entry), { recursive: true });
      await writeFile(entry, text("extension/dist/extension.js"));
      // VS Code hands extensions its API as the module `vscode`: a fake of it stands beside.
      const stub = path.join(unpacked, "node_modules/vscode/index.js");
      await mkdir(path.dirname(stub), { recursive: true });
      await copyFile(path.join(ROOT, "test/data/vscode/fake-vscode.cjs"), stub);
      const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
      const load = loader._load;
      loader._load = function (request: string, ...rest: unknown[]) {
        required.add(request);
        return load.call(this, request, ...rest);
      };
      try {
        extension = createRequire(entry)(entry) as Extension;
      } finally {
        loader._load = load;
      }
    });

    it("requires nothing but Node's own modules and vscode", () => {
      required.delete(path.join(dir, "unpacked/extension/dist/extension.js"));
      const outside = [...required].filter((r) => r !== "vscode" && !builtinModules.includes(r.replace(/^node:/, "")));
      assert.deepEqual(outside, []);
      assert.ok(required.has("vscode"));
      assert.equal(typeof extension.activate, "function");
      assert.equal(typeof extension.deactivate, "function");
      assert.deepEqual(extension.CLIENT_OPTIONS.documentSelector, [
        { scheme: "file", language: "yaml" },
        { scheme: "untitled", language: "yaml" },
      ]);
    });

    it("starts `kro lsp` with the settings' path and arguments", () => {
      assert.deepEqual(extension.serverOptions(settings({})), { command: "kro", args: ["lsp"] });
      assert.deepEqual(extension.serverOptions(settings({ path: "", args: [] })), { command: "kro", args: ["lsp"] });
      assert.deepEqual(
        extension.serverOptions(settings({ path: " /opt/kro/bin/kro ", args: ["--kube-version", "1.31", 7] })),
        { command: "/opt/kro/bin/kro", args: ["lsp", "--kube-version", "1.31"] },
      );
    });

    it("computes a command that runs the real server with those arguments", async () => {
      // Arguments the server refuses reach it: it exits saying so.
      const refused = extension.serverOptions(settings({ path: CLI, args: ["--kube-version", "1.0"] }));
      const failed = await run(refused.command, refused.args ?? []).then(
        () => assert.fail("kro lsp --kube-version 1.0 started"),
        (error: unknown) => error as { code: number; stderr: string },
      );
      assert.equal(failed.code, 1);
      assert.match(failed.stderr, /unsupported Kubernetes version "1\.0"/);

      const accepted = extension.serverOptions(settings({ path: CLI, args: ["--kube-version", "1.31"] }));
      const child = spawn(accepted.command, accepted.args ?? [], { stdio: ["pipe", "pipe", "inherit"] });
      const client = new LspClient(child.stdout, child.stdin);
      try {
        const { capabilities } = await client.initialize();
        assert.equal(capabilities.hoverProvider, true);
        await client.request("shutdown", null);
      } finally {
        client.connection.dispose();
        child.kill();
      }
    });

    it("activates: starts the configured server, restarts it when kro.args change, stops it on deactivate", async () => {
      // A `kro` that logs each start and exit of the real server.
      const log = path.join(dir, "kro.log");
      const kro = path.join(dir, "kro");
      await writeFile(
        kro,
        `#!/bin/sh\necho "start $*" >> '${log}'\n'${process.execPath}' '${CLI}' "$@"\necho "exit $?" >> '${log}'\n`,
      );
      await chmod(kro, 0o755);
      const globals = globalThis as unknown as {
        kroSettings: Record<string, unknown>;
        vscodeShown: string[];
        vscodeConfigurationListeners: ((event: { affectsConfiguration(key: string): boolean }) => Promise<void>)[];
      };
      globals.kroSettings = { path: kro, args: ["--kube-version", "1.31"] };
      // The client resolves start() once the server has answered `initialize`.
      await extension.activate({ subscriptions: [] });
      globals.kroSettings = { path: kro, args: ["--kube-version", "1.32"] };
      const [listener] = globals.vscodeConfigurationListeners;
      assert.ok(listener !== undefined);
      await listener({ affectsConfiguration: (key) => key === "editor.fontSize" });
      await listener({ affectsConfiguration: (key) => key === "kro.args" });
      await extension.deactivate();
      assert.deepEqual(globals.vscodeShown, []);
      // Each stop is the client's shutdown and exit, which the server ends with 0. stop() resolves
      // once the exit is sent, so the first server may log its end after the second started.
      let lines: string[] = [];
      for (let tries = 0; tries < 600 && lines.length < 4; tries++) {
        lines = (await readFile(log, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");
        if (lines.length < 4) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(
        lines.filter((l) => l.startsWith("start")),
        ["start lsp --kube-version 1.31", "start lsp --kube-version 1.32"],
      );
      assert.deepEqual(
        lines.filter((l) => !l.startsWith("start")),
        ["exit 0", "exit 0"],
      );
    });
  });
});
