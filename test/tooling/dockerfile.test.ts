// The container image, checked without a container engine (there is none here): hadolint lints
// the Dockerfile, its stages do what the README promises (npm ci + tsc, then a slim Node LTS
// base, production dependencies only, non-root), and everything the runtime stage relies on is
// in `npm pack` — the entrypoint, every module it imports, and no dev-only package.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { builtinModules } from "node:module";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../src/deploy/index.js";
import { hadolintBinary } from "../support/hadolint.js";

const run = promisify(execFile);

interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** Dockerfile instructions, with `\` continuations joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((line) => {
      const [op = "", ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(" ") };
    });
}

/** Stages: the instructions after each FROM, keyed by the stage name. */
function stages(all: readonly Instruction[]): Map<string, Instruction[]> {
  const out = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const i of all) {
    if (i.op === "FROM") {
      const name = /\bAS\s+(\S+)/i.exec(i.args)?.[1] ?? `stage${out.size}`;
      current = [i];
      out.set(name, current);
    } else current?.push(i);
  }
  return out;
}

const dockerfile = async () => readFile(path.join(REPO_ROOT, "Dockerfile"), "utf8");

interface PackFile {
  path: string;
}

async function packedFiles(): Promise<string[]> {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(stdout) as { files: PackFile[] }[];
  assert.ok(pack !== undefined);
  return pack.files.map((f) => f.path);
}

describe("Dockerfile", () => {
  it("passes hadolint, which does flag a bad Dockerfile", async () => {
    const hadolint = await hadolintBinary();
    const { stdout } = await run(hadolint, [path.join(REPO_ROOT, "Dockerfile")]);
    assert.equal(stdout.trim(), "");
    const dir = await mkdtemp(path.join(tmpdir(), "kro-hadolint-"));
    try {
      await writeFile(path.join(dir, "Dockerfile"), "FROM node:latest\nRUN cd /app && npm install\n");
      await assert.rejects(run(hadolint, [path.join(dir, "Dockerfile")]), (error: unknown) => {
        const { stdout: out = "" } = error as { stdout?: string };
        assert.match(out, /DL3007/); // using latest
        assert.match(out, /DL3003/); // use WORKDIR instead of cd
        return true;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("builds with npm ci and tsc, then runs as non-root on a slim Node LTS base with production dependencies only", async () => {
    const all = instructions(await dockerfile());
    const base = /^NODE_IMAGE=(\S+)$/.exec(all.find((i) => i.op === "ARG")?.args ?? "")?.[1];
    assert.ok(base !== undefined, "ARG NODE_IMAGE=<image> before the stages");
    const major = /^node:(\d+)-[a-z]+-slim$/.exec(base)?.[1];
    assert.ok(major !== undefined, `${base} is a slim Debian Node image`);
    assert.equal(Number(major) % 2, 0, "an even (LTS) Node major");
    const byName = stages(all);
    assert.deepEqual([...byName.keys()], ["build", "runtime"]);
    const build = byName.get("build") ?? [];
    const runtime = byName.get("runtime") ?? [];
    for (const stage of [build, runtime])
      assert.equal(stage[0]?.args, "${NODE_IMAGE} AS " + (stage === build ? "build" : "runtime"));
    const runs = (stage: Instruction[]) =>
      stage
        .filter((i) => i.op === "RUN")
        .map((i) => i.args)
        .join("\n");
    assert.match(runs(build), /npm ci\b/);
    assert.match(runs(build), /tsc -p tsconfig\.build\.json/);
    assert.match(runs(build), /npm pack\b/);
    assert.match(runs(runtime), /npm ci --omit=dev\b/);
    assert.doesNotMatch(runs(runtime), /tsc|npm install/);
    const users = runtime.filter((i) => i.op === "USER").map((i) => i.args);
    assert.deepEqual(users, ["1000:1000"], "one USER, the uid the chart's pod securityContext runs as");
    const values = await readFile(path.join(REPO_ROOT, "charts/kro-ts/templates/deployment.yaml"), "utf8");
    assert.match(values, /runAsUser: 1000\n/);
    const entrypoint = runtime.find((i) => i.op === "ENTRYPOINT")?.args;
    assert.deepEqual(JSON.parse(entrypoint ?? "null"), [
      "node",
      "--max-semi-space-size=2",
      "/app/dist/src/cli/main.js",
      "controller",
    ]);
    assert.ok(runtime.some((i) => i.op === "WORKDIR" && i.args === "/app"));
    // The runtime stage takes only the packed package and the lockfile, nothing else from the build.
    assert.deepEqual(
      runtime.filter((i) => i.op === "COPY").map((i) => i.args),
      ["--from=build /pkg/ ./", "package-lock.json ./"],
    );
  });

  it("copies only paths that exist and that .dockerignore does not exclude", async () => {
    const ignored = (await readFile(path.join(REPO_ROOT, ".dockerignore"), "utf8"))
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
    for (const needed of [".git", "node_modules", "dist", "test"])
      assert.ok(ignored.includes(needed), `.dockerignore excludes ${needed}`);
    const copies = instructions(await dockerfile()).filter((i) => i.op === "COPY" && !i.args.startsWith("--from"));
    const sources = copies.flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    assert.deepEqual(sources.sort(), [
      "go",
      "package-lock.json",
      "package-lock.json",
      "package.json",
      "schemas",
      "src",
      "tsconfig.build.json",
      "tsconfig.json",
    ]);
    for (const source of sources) {
      await readFile(path.join(REPO_ROOT, source)).catch((e: unknown) => {
        if ((e as { code?: string }).code !== "EISDIR") throw e;
      });
      assert.ok(
        !ignored.some((pattern) => pattern === source || source.startsWith(`${pattern}/`)),
        `${source} is not dockerignored`,
      );
    }
  });

  it("tsconfig.build.json compiles src/ without tests, so the build context needs no test/", async () => {
    const { stdout } = await run("npx", ["tsc", "-p", "tsconfig.build.json", "--listFilesOnly"], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const own = stdout
      .split("\n")
      .filter((f) => f !== "" && !f.includes("/node_modules/"))
      .map((f) => path.relative(REPO_ROOT, f));
    assert.ok(own.includes("src/cli/main.ts"));
    for (const file of own) {
      assert.ok(file.startsWith("src/") && !file.endsWith(".test.ts"), `${file} would be compiled in the image`);
    }
  });
});

describe("npm pack (what the runtime stage copies)", () => {
  it("holds the entrypoint, every module it imports, the schemas, and no tests", async () => {
    const files = new Set(await packedFiles());
    for (const needed of ["package.json", "dist/src/cli/main.js", "schemas/kubernetes/1.33.json.gz"])
      assert.ok(files.has(needed), `${needed} packed`);
    assert.ok(![...files].some((f) => /\.test\.|^dist\/test\//.test(f)), "no test files");

    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const seen = new Set<string>();
    const queue = ["dist/src/cli/main.js"];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      assert.ok(files.has(file), `${file} (imported by the entrypoint) is packed`);
      const source = await readFile(path.join(REPO_ROOT, file), "utf8");
      // `from` must stand alone (not "imported-from" in a string), and a specifier is one line.
      for (const [, specifier = ""] of source.matchAll(
        /(?:(?:^|[\s}])from\s*|\bimport\s*\(\s*|^import\s+)["']([^"'\n]+)["']/gm,
      )) {
        if (specifier.startsWith(".")) queue.push(path.posix.join(path.posix.dirname(file), specifier));
        else {
          const name = specifier.startsWith("@")
            ? specifier.split("/").slice(0, 2).join("/")
            : (specifier.split("/")[0] ?? "");
          assert.ok(
            builtins.has(specifier) || name in pkg.dependencies,
            `${file} imports ${specifier}: a production dependency`,
          );
        }
      }
    }
    assert.ok(seen.size > 50, `followed the import graph (${seen.size} modules)`);
  });
});
