// `kro validate` and `kro generate crd` on the seed's template-dialect RGD (examples/nginx), as a
// user runs them: template errors located in the RGD file, and the status storage that
// `generate crd --crd` prints accepted by the real API server on a copy of the seed's CRD.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = path.join(ROOT, "dist/src/cli/main.js");
const RGD = path.join(ROOT, "examples/nginx/nginxapp-rgd.yaml");
const CRD = path.join(ROOT, "examples/nginx/nginxapp-crd.yaml");

function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

let dir = "";
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "kro-template-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function copyOf(file: string, name: string, edit: (text: string) => string): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, edit(await readFile(file, "utf8")));
  return target;
}

describe("kro validate on the template dialect", () => {
  it("accepts the seed's RGD and summarises it", async () => {
    const result = await kro(["validate", "-f", RGD]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      "nginxapp-graph: valid (NginxApp.kro.example.com, 3 resources: deployment → service → ingress; template dialect: attaches to the existing CRD for NginxApp.kro.example.com/v1)\n",
    );
  });

  it("locates template errors in the RGD file: the template: block's line plus the line inside it", async () => {
    const broken = await copyOf(RGD, "broken.yaml", (t) =>
      t
        .replace("replicas: {{.parent.spec.replicas}}", "replicas: {{.parent.spec.replicas}")
        .replace("number: {{$.parent.spec.service.port}}", "number: {{$.parent.spec.service.port | portOf}}"),
    );
    const result = await kro(["validate", "-f", broken]);
    assert.equal(result.code, 1);
    // template: | is on line 14; its line 2 is file line 16, where the `}` sits in column 35.
    assert.match(
      result.stderr,
      /^.*broken\.yaml:16:35: error: spec\.childResources\[0\]\.template: template: deployment\.template:2: bad character U\+007D '\}'$/m,
    );
    assert.match(result.stderr, /^ {3}16 \| {11}replicas: \{\{\.parent\.spec\.replicas\}$/m);
    assert.match(result.stderr, /^ {6}\| {35}\^$/m);
    assert.match(
      result.stderr,
      /broken\.yaml:79:62: error: spec\.childResources\[2\]\.template: template: ingress\.template:14: function "portOf" not defined/,
    );
  });

  it("locates unknown .children references inside a quoted one-line template", async () => {
    const broken = await copyOf(RGD, "unknown-child.yaml", (t) =>
      t.replace(
        'condition: "{{.parent.spec.ingress.enabled}}"',
        'condition: "{{.parent.spec.ingress.enabled}} {{ .children.db.x }}"',
      ),
    );
    const result = await kro(["validate", "-f", broken]);
    assert.equal(result.code, 1);
    // The column counts from the opening quote: `.children` starts in column 55.
    assert.match(
      result.stderr,
      /unknown-child\.yaml:64:55: error: spec\.childResources\[2\]\.condition: \.children\.db names no child \(ids: deployment, service, ingress\)/,
    );
  });

  it("with the parent's CRD (--crd), warns about .parent.spec fields it does not define, and still exits 0", async () => {
    const typo = await copyOf(RGD, "typo.yaml", (t) =>
      t.replace("replicas: {{.parent.spec.replicas}}", "replicas: {{.parent.spec.replica}}"),
    );
    const result = await kro(["validate", "-f", typo, "--crd", CRD]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /typo\.yaml:16:23: warning: spec\.childResources\[0\]\.template: \.parent\.spec\.replica is not in the schema of NginxApp \(it has: replicas, image, service, ingress, resources\); it would render <no value>/,
    );
    assert.match(result.stdout, /nginxapp-graph: valid/);
  });

  it("reports them as JSON with -o json", async () => {
    const broken = await copyOf(RGD, "broken-json.yaml", (t) =>
      t.replace("type: {{.parent.spec.service.type}}", "type: {{ if }}"),
    );
    const result = await kro(["validate", "-f", broken, "-o", "json"]);
    assert.equal(result.code, 1);
    const [diagnostic, ...rest] = JSON.parse(result.stdout) as {
      line: number;
      column: number;
      code: string;
      path: string;
      message: string;
    }[];
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [diagnostic?.code, diagnostic?.path, diagnostic?.line, diagnostic?.column],
      ["template.parse-error", "spec.childResources[1].template", 59, 23],
    );
    assert.match(diagnostic?.message ?? "", /missing value for if/);
  });
});

describe("kro render on the template dialect", () => {
  const INSTANCE = path.join(ROOT, "examples/nginx/my-nginx.yaml");

  it("renders the seed's three children in the default namespace, labelled app=my-nginx", async () => {
    const result = await kro(["render", "-f", RGD, "-i", INSTANCE, "--crd", CRD, "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const { items } = JSON.parse(result.stdout) as {
      items: {
        kind: string;
        metadata: { name: string; namespace?: string; labels?: Record<string, string> };
        spec?: { replicas?: number };
      }[];
    };
    assert.deepEqual(
      items.map((o) => [o.kind, o.metadata.name, o.metadata.namespace, o.metadata.labels?.app]),
      [
        ["Deployment", "my-nginx", "default", "my-nginx"],
        ["Service", "my-nginx", "default", "my-nginx"],
        ["Ingress", "my-nginx", "default", "my-nginx"],
        ["NginxApp", "my-nginx", "default", undefined],
      ],
    );
    // The rendered objects are valid for the real API server.
    const dryRun = await kubectl(
      ["apply", "--dry-run=server", "-n", "default", "-f", "-"],
      items
        .slice(0, 3)
        .map((o) => JSON.stringify(o))
        .join("\n"),
    );
    assert.match(dryRun, /deployment\.apps\/my-nginx created \(server dry run\)/);
  });

  it("refuses what a template renders with the wrong type (a quoted number), naming object and field, exit 1", async () => {
    const quoted = await copyOf(RGD, "quoted.yaml", (t) =>
      t.replace("replicas: {{.parent.spec.replicas}}", 'replicas: "{{.parent.spec.replicas}}"'),
    );
    const result = await kro(["render", "-f", quoted, "-i", INSTANCE, "--crd", CRD]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(
      result.stderr,
      /^kro render: error: Deployment\/my-nginx: spec\.replicas: expected integer type for path spec\.replicas, got string; the API server would refuse it$/m,
    );
  });

  it("applies the user's CRD defaults given with --crd", async () => {
    const instance = await copyOf(INSTANCE, "no-replicas.yaml", (t) =>
      t.replace("  replicas: 2\n", "").replace("enabled: true", "enabled: false"),
    );
    const result = await kro(["render", "-f", RGD, "-i", instance, "--crd", CRD, "-o", "json"]);
    assert.equal(result.code, 0, result.stderr);
    const { items } = JSON.parse(result.stdout) as { items: { kind: string; spec?: { replicas?: number } }[] };
    assert.deepEqual(
      items.map((o) => o.kind),
      ["Deployment", "Service", "NginxApp"],
    );
    assert.equal(items[0]?.spec?.replicas, 1);
  });
});

describe("kro generate crd on the template dialect", () => {
  it("says that the dialect uses the user's CRD, naming it, and exits 1", async () => {
    const result = await kro(["generate", "crd", "-f", RGD]);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    assert.match(
      result.stderr,
      /nginxapp-graph uses the template dialect \(spec\.resourceKind\): it attaches to your existing CRD for NginxApp\.kro\.example\.com\/v1 and generates none\./,
    );
  });

  it("with --crd prints status storage the real API server accepts, leaving the rest of the CRD alone", async (t) => {
    // A private copy of the seed's CRD (own group), so no other test's NginxApp is touched.
    const group = `tmpl-${randomBytes(3).toString("hex")}.example.com`;
    const crdFile = await copyOf(CRD, "crd.yaml", (text) => text.replaceAll("kro.example.com", group));
    const rgdFile = await copyOf(RGD, "rgd.yaml", (text) => text.replaceAll("kro.example.com", group));
    const crdName = `nginxapps.${group}`;
    await kubectl(["apply", "-f", crdFile]);
    t.after(async () => {
      await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(["wait", "--for=condition=Established", `crd/${crdName}`, "--timeout=30s"]);

    const planned = await kro(["generate", "crd", "-f", rgdFile, "--crd", crdFile]);
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(planned.stdout, /^# {3}\+ spec\.versions\[v1\]\.subresources\.status$/m);
    const applied = await kubectl(
      ["apply", "--server-side", "--force-conflicts", "--field-manager=kro.run/controller", "-f", "-"],
      planned.stdout,
    );
    assert.match(
      applied,
      new RegExp(
        `customresourcedefinition\\.apiextensions\\.k8s\\.io/${crdName.replaceAll(".", "\\.")} serverside-applied`,
      ),
    );

    const crd = await kubectlJson<{
      spec: {
        versions: {
          subresources?: unknown;
          schema: {
            openAPIV3Schema: { properties: { spec: { properties: { replicas: unknown } }; status?: unknown } };
          };
        }[];
      };
    }>(["get", "crd", crdName]);
    const [version] = crd.spec.versions;
    assert.ok(version);
    assert.deepEqual(version.subresources, { status: {} });
    assert.deepEqual(version.schema.openAPIV3Schema.properties.status, {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    assert.deepEqual(version.schema.openAPIV3Schema.properties.spec.properties.replicas, {
      type: "integer",
      default: 1,
    });

    // Status is now storable through the status subresource.
    const ns = await testNamespace(t, "tmpl-status");
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      (await readFile(path.join(ROOT, "examples/nginx/my-nginx.yaml"), "utf8")).replaceAll("kro.example.com", group),
    );
    await kubectl([
      "patch",
      `nginxapps.${group}`,
      "my-nginx",
      "-n",
      ns,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { availableReplicas: 2, serviceIP: "10.0.0.1" } }),
    ]);
    const instance = await kubectlJson<{ status?: unknown }>(["get", `nginxapps.${group}`, "my-nginx", "-n", ns]);
    assert.deepEqual(instance.status, { availableReplicas: 2, serviceIP: "10.0.0.1" });

    // Once stored, there is nothing left to add.
    const live = path.join(dir, "live-crd.yaml");
    await writeFile(live, await kubectl(["get", "crd", crdName, "-o", "yaml"]));
    const again = await kro(["generate", "crd", "-f", rgdFile, "--crd", live]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "");
    assert.match(again.stderr, /already stores status, so the controller changes nothing/);
  });
});
