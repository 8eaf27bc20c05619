// `kro validate` and `kro generate crd` as a user runs them, and the generated CRD accepted by
// the real API server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectl } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const WEBAPP = path.join(ROOT, "test/fixtures/rgd/webapp.yaml");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

async function withBrokenCopy<T>(edit: (text: string) => string, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), "kro-cli-"));
  try {
    const file = path.join(dir, "broken.yaml");
    await writeFile(file, edit(await readFile(WEBAPP, "utf8")));
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("kro validate", () => {
  it("exits 0 and summarises a valid RGD", async () => {
    const result = await kro(["validate", "-f", WEBAPP]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^webapp: valid \(WebApp\.kro\.run, 4 resources: deploy → svc → ing → cms\)$/m);
  });

  it("prints what an RGD delegates to instance authors beyond their own rights", async () => {
    const plain = await kro(["validate", "-f", WEBAPP]);
    assert.doesNotMatch(plain.stdout, /delegat/);
    await withBrokenCopy(
      (t) => t.replace(/^metadata:\n/m, 'metadata:\n  annotations: { kro.run/author-check-exempt: "svc,nope" }\n'),
      async (file) => {
        const result = await kro(["validate", "-f", file]);
        assert.equal(result.code, 0, result.stderr);
        assert.match(
          result.stdout,
          /^webapp: delegates to instance authors the creation, update and deletion of svc \(Service\), nope \(no such resource\) without their own rights \(kro\.run\/author-check-exempt\); adopting existing objects is never delegated; it holds only if its recorded author holds these rights \(the controller verifies with SubjectAccessReviews; no kro\.run\/delegated-by is recorded yet: whoever applies it must add kro\.run\/delegated-by: <their user>/m,
        );
      },
    );
    await withBrokenCopy(
      (t) => t.replace(/^metadata:\n/m, "metadata:\n  annotations: { kro.run/author-check: Disabled }\n"),
      async (file) => {
        assert.match(
          (await kro(["validate", "-f", file])).stdout,
          /^webapp: author check Disabled \(kro\.run\/author-check\): every instance author is trusted/m,
        );
      },
    );
  });

  it("exits 1 with file:line:column, the source line and a caret", async () => {
    await withBrokenCopy(
      (t) => t.replace("replicas: ${schema.spec.replicas}", "replicas: ${schema.spec.name}"),
      async (file) => {
        const result = await kro(["validate", "-f", file]);
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          /broken\.yaml:29:11: error: spec\.resources\[0\]\.template\.spec\.replicas: expression "schema\.spec\.name" returns type "string"/,
        );
        assert.match(result.stderr, /^ {3}29 \| {11}replicas: \$\{schema\.spec\.name\}$/m);
        assert.match(result.stderr, /^ {6}\| {11}\^$/m);
      },
    );
  });

  it("prints machine-readable diagnostics with -o json", async () => {
    await withBrokenCopy(
      (t) => t.replace("integer | default=2 minimum=1", "integer | default=2 colour=1"),
      async (file) => {
        const result = await kro(["validate", "-f", file, "-o", "json"]);
        assert.equal(result.code, 1);
        const diagnostics = JSON.parse(result.stdout) as { line: number; column: number; code: string; path: string }[];
        assert.deepEqual(
          diagnostics.map((d) => [d.code, d.path, d.line, d.column]),
          [["schema.unknown-marker", "spec.schema.spec.replicas", 12, 7]],
        );
      },
    );
  });

  it("fails clearly on a missing file", async () => {
    const result = await kro(["validate", "-f", "/nonexistent/rgd.yaml"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /kro: error: cannot read \/nonexistent\/rgd\.yaml: ENOENT/);
  });
});

describe("kro generate crd", () => {
  it("prints a CRD that the real API server accepts", async () => {
    const result = await kro(["generate", "crd", "-f", WEBAPP]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^kind: CustomResourceDefinition$/m);
    const applied = await kubectl(["apply", "--server-side", "--dry-run=server", "-f", "-"], result.stdout);
    assert.match(
      applied,
      /customresourcedefinition\.apiextensions\.k8s\.io\/webapps\.kro\.run serverside-applied \(server dry run\)/,
    );
  });

  it("rejects an unknown output format", async () => {
    const result = await kro(["generate", "crd", "-f", WEBAPP, "-o", "xml"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /unknown output format "xml"/);
  });
});

describe("kro validate warnings", () => {
  it("prints an unbounded-cost warning with its position and still exits 0", async () => {
    await withBrokenCopy(
      (t) =>
        t.replace(
          "      url: ",
          "      names: ${schema.spec.regions.map(r, r + '-' + svc.metadata.name)}\n      url: ",
        ),
      async (file) => {
        const result = await kro(["validate", "-f", file]);
        assert.equal(result.code, 0, result.stderr);
        assert.match(
          result.stderr,
          /broken\.yaml:18:7: warning: spec\.schema\.status\.names: expression "schema\.spec\.regions\.map\(r, r \+ '-' \+ svc\.metadata\.name\)": cost cannot be bounded/,
        );
        assert.match(result.stdout, /^webapp: valid /m);
      },
    );
  });
});

describe("kro graph", () => {
  it("prints the text picture by default", async () => {
    const result = await kro(["graph", "-f", WEBAPP]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^graph webapp: instance WebApp \(kro\.run\/v1alpha1\)$/m);
    assert.match(result.stdout, /^ {2}ing +Ingress networking\.k8s\.io\/v1 +wave 3 +<- svc \[conditional\]$/m);
  });

  it("prints mermaid and dot", async () => {
    const mermaid = await kro(["graph", "-f", WEBAPP, "--format", "mermaid"]);
    assert.equal(mermaid.code, 0, mermaid.stderr);
    assert.match(mermaid.stdout, /^flowchart TD$/m);
    const dot = await kro(["graph", "-f", WEBAPP, "--format", "dot"]);
    assert.equal(dot.code, 0, dot.stderr);
    assert.match(dot.stdout, /^ {2}"svc" -> "ing";$/m);
  });

  it("renders SVG in-process to a file with -o", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-graph-"));
    try {
      const out = path.join(dir, "webapp.svg");
      const result = await kro(["graph", "-f", WEBAPP, "--format", "svg", "-o", out]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "");
      const svg = await readFile(out, "utf8");
      assert.match(svg, /^<\?xml /);
      assert.match(svg, /<svg /);
      // every node label is laid out as text
      for (const label of ["WebApp", "deploy", "Deployment", "svc", "ing", "cms", "legend"])
        assert.match(svg, new RegExp(`>${label}<`));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects an unknown format and reports compile errors with exit 1", async () => {
    const unknown = await kro(["graph", "-f", WEBAPP, "--format", "png"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown format "png": use text, mermaid, dot, svg/);
    await withBrokenCopy(
      (t) => t.replace("name: ${deploy.metadata.name}", "name: ${svc.metadata.name}"),
      async (file) => {
        const broken = await kro(["graph", "-f", file]);
        assert.equal(broken.code, 1);
        assert.match(
          broken.stderr,
          /error: spec\.resources\[1\]\.template\.metadata\.name: resource "svc" references itself/,
        );
        assert.equal(broken.stdout, "");
      },
    );
  });
});
