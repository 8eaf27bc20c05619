// What a `kro` command loads: only its own code. Every command once loaded the controller (its
// metrics, informers, the Kubernetes client) before doing anything — ~0.5 s and ~45 MB for
// `kro --version`. Observed with a module-loading hook that records every file module Node loads.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");

let dir = "";
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-cli-startup-"));
  // Hooks run on their own thread: they append each loaded file URL to the file the child names.
  await writeFile(
    path.join(dir, "hooks.mjs"),
    [
      'import { appendFileSync } from "node:fs";',
      "export async function load(url, context, next) {",
      '  if (url.startsWith("file:")) appendFileSync(process.env.KRO_LOADED_LOG, url + "\\n");',
      "  return next(url, context);",
      "}",
    ].join("\n"),
  );
  await writeFile(
    path.join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(path.join(dir, "hooks.mjs")).href)});\n`,
  );
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `kro args…` and returns its exit code, output and the repository files it loaded. */
async function loaded(
  name: string,
  args: readonly string[],
): Promise<{ code: number; stdout: string; files: string[] }> {
  const log = path.join(dir, `${name}.log`);
  await writeFile(log, "");
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(path.join(dir, "register.mjs")).href, CLI, ...args],
      { env: { ...process.env, KRO_LOADED_LOG: log }, cwd: ROOT },
      (error, out) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout: out });
      },
    );
  });
  const files = (await readFile(log, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((u) => path.relative(ROOT, fileURLToPath(u)));
  return { code, stdout, files };
}

const under = (files: readonly string[], prefix: string) => files.filter((f) => f.startsWith(prefix));

describe("kro commands load only their own code", () => {
  it("kro --version loads no command at all", async () => {
    const run = await loaded("version", ["--version"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^\d+\.\d+\.\d+/);
    assert.deepEqual(
      under(run.files, "dist/src/").filter(
        (f) => !f.startsWith("dist/src/cli/main.js") && !f.startsWith("dist/src/cli/version.js"),
      ),
      [],
    );
  });

  it("kro validate and kro import helm load neither the controller nor its metrics", async () => {
    const validate = await loaded("validate", ["validate", "-f", "examples/webapp/webapp-rgd.yaml"]);
    assert.equal(validate.code, 0, validate.stdout);
    const imported = await loaded("import", ["import", "helm", "examples/helm-nginx/chart"]);
    assert.equal(imported.code, 0);
    for (const run of [validate, imported]) {
      assert.ok(under(run.files, "dist/src/graph/").length > 0, "the compiler was loaded (the hook sees modules)");
      assert.deepEqual(under(run.files, "dist/src/controller/"), []);
      assert.deepEqual(
        run.files.filter((f) => f.includes("node_modules/prom-client/")),
        [],
      );
      // Loaded on first use only (a regexp, a TOML document, a bcrypt hash): neither command needs them.
      assert.deepEqual(
        run.files.filter((f) => /node_modules\/(re2js|smol-toml|bcryptjs)\//.test(f)),
        [],
      );
    }
    // A chart import works offline: the cluster client comes only with --release.
    assert.deepEqual(under(imported.files, "dist/src/kube/"), []);
  });

  it("the kro executable runs node with the image's young-generation flag", async () => {
    const shebang = (await readFile(CLI, "utf8")).split("\n")[0] ?? "";
    const docker = /^ENTRYPOINT (.*)$/m.exec(await readFile(path.join(ROOT, "Dockerfile"), "utf8"))?.[1] ?? "[]";
    const imageFlags = (JSON.parse(docker) as string[]).filter((a) => a.startsWith("--"));
    assert.ok(imageFlags.length > 0, "the image passes node flags");
    assert.equal(shebang, `#!/usr/bin/env -S node ${imageFlags.join(" ")}`);
    // Run as npm runs a bin: the file itself (npm makes it executable on install).
    await chmod(CLI, 0o755);
    const argvLog = path.join(dir, "execargv.json");
    await writeFile(
      path.join(dir, "argv.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.execArgv));\n`,
    );
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        CLI,
        ["--version"],
        { env: { ...process.env, NODE_OPTIONS: `--import ${pathToFileURL(path.join(dir, "argv.mjs")).href}` } },
        (error, stdout) => {
          if (error === null) resolve(stdout);
          else reject(new Error(`kro --version failed: ${error.message}`));
        },
      );
    });
    assert.match(out, /^\d+\.\d+\.\d+/);
    assert.deepEqual(JSON.parse(await readFile(argvLog, "utf8")), imageFlags);
  });

  it("kro --help still lists every command, the controller's included", async () => {
    const run = await loaded("help", ["--help"]);
    for (const command of [
      "cluster",
      "validate",
      "generate",
      "controller",
      "render",
      "convert",
      "graph",
      "dev",
      "demo",
      "tree",
      "diff",
      "ui",
      "import",
    ]) {
      assert.match(run.stdout, new RegExp(`^  ${command}\\b`, "m"), `${command} listed`);
    }
  });
});
