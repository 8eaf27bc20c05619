// `kro diff`: a changed RGD previewed against instances the real controller reconciled — a field
// change over every instance, a node removed, a node turned off by includeWhen, a node added, an
// adopted object whose deletion our ownership rules refuse, a CRD change the breaking-change gate
// refuses — and `-i` for one changed instance. The cluster is unchanged afterwards: every
// object's resourceVersion is the same as before.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "../support/eventually.js";
import type { KubeObject } from "../../src/index.js";
import { recordItems, recordText } from "../support/instance-record.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import type { DiffReport } from "../../src/cli/diff/diff-model.js";

const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const letters = letterSuffix();
const kind = `DiffWeb${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const rgdName = `diff-web-${letters}`;
const INSTANCES = ["web-a", "web-b", "web-c"];

interface Variant {
  replicas: string;
  includeExtra: string;
  withSvc: boolean;
  withNote: boolean;
  extraSchema?: string;
}

function rgdSpec(v: Variant): string {
  return `
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      replicas: integer | default=1
      withExtra: boolean | default=true${v.extraSchema ?? ""}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data: { replicas: "\${string(schema.spec.replicas)}" }
    - id: deploy
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${schema.metadata.name}" }
        spec:
          replicas: ${v.replicas}
          selector: { matchLabels: { app: "\${schema.metadata.name}" } }
          template:
            metadata: { labels: { app: "\${schema.metadata.name}" } }
            spec: { containers: [{ name: web, image: "nginx:1.27" }] }
    - id: extra
      includeWhen:
        - ${v.includeExtra}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-extra" }
        data: { from: "\${config.metadata.name}" }
${
  v.withSvc
    ? `    - id: svc
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${schema.metadata.name}" }
        spec: { selector: { app: "\${schema.metadata.name}" }, ports: [{ port: 80 }] }
`
    : ""
}${
    v.withNote
      ? `    - id: note
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-note" }
        data: { note: "added" }
`
      : ""
  }`;
}

const V1: Variant = {
  replicas: "${schema.spec.replicas}",
  includeExtra: "${schema.spec.withExtra}",
  withSvc: true,
  withNote: false,
};
// Every Deployment gets one more replica, web-b's extra ConfigMap is turned off, svc is gone, note is new.
const V2: Variant = {
  replicas: "${schema.spec.replicas + 1}",
  includeExtra: '${schema.spec.withExtra && schema.metadata.name != "web-b"}',
  withSvc: false,
  withNote: true,
};

async function kro(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args, "--kubeconfig", testCluster().kubeconfig],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
      },
    );
  });
}

/** Every object's resourceVersion in the namespace, plus the RGD and its CRD. */
async function versions(ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const list = await kubectlJson<{ items: { kind: string; metadata: { name: string; resourceVersion: string } }[] }>([
    "get",
    "configmaps,services,deployments,replicasets,serviceaccounts",
    "-n",
    ns,
  ]);
  for (const item of list.items) out[`${item.kind}/${item.metadata.name}`] = item.metadata.resourceVersion;
  const instances = await kubectlJson<{ items: { metadata: { name: string; resourceVersion: string } }[] }>([
    "get",
    kind.toLowerCase(),
    "-n",
    ns,
  ]);
  for (const item of instances.items) out[`${kind}/${item.metadata.name}`] = item.metadata.resourceVersion;
  const rgd = await kubectlJson<{ metadata: { resourceVersion: string } }>(["get", "rgd", rgdName]);
  out.rgd = rgd.metadata.resourceVersion;
  const crd = await kubectlJson<{ metadata: { resourceVersion: string } }>([
    "get",
    "crd",
    `${kind.toLowerCase()}s.kro.run`,
  ]);
  out.crd = crd.metadata.resourceVersion;
  return out;
}

describe("kro diff", { timeout: 300_000 }, () => {
  let tc: TestController;
  let dir: string;
  let ns: string;
  const file = (name: string) => path.join(dir, name);
  before(async () => {
    tc = await startTestController();
    dir = await mkdtemp(path.join(tmpdir(), "kro-diff-"));
    ns = `diff-${letters}`;
    await kubectl(["create", "namespace", ns]);
    await writeFile(file("v1.yaml"), `${rgdHeader(tc, rgdName)}${rgdSpec(V1)}`);
    await writeFile(file("v2.yaml"), `${rgdHeader(tc, rgdName)}${rgdSpec(V2)}`);
    // A new required field: objects valid before become invalid — the gate refuses it.
    await writeFile(
      file("v3.yaml"),
      `${rgdHeader(tc, rgdName)}${rgdSpec({ ...V2, extraSchema: "\n      tier: string | required=true" })}`,
    );
    await kubectl(["apply", "-f", file("v1.yaml")]);
    await waitRgdActive(rgdName);
    // web-c adopts a Service someone made by hand (kro.run/adopt): never ours to delete.
    await kubectl(
      ["apply", "-n", ns, "-f", "-"],
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web-c\nspec:\n  ports: [{ port: 80 }]\n",
    );
    for (const name of INSTANCES) {
      const adopt = name === "web-c" ? '\n  annotations: { kro.run/adopt: "true" }' : "";
      await kubectl(
        ["apply", "-n", ns, "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: ${name}${adopt}\nspec: {}\n`,
      );
    }
    await eventually(
      async () => {
        for (const name of INSTANCES) {
          const o = await kubectlJson<KubeObject>(["get", kind.toLowerCase(), name, "-n", ns]);
          assert.equal(recordItems(o).length, 4, `${name}: ${recordText(o)}`);
        }
      },
      { timeout: 90_000 },
    );
  });
  after(async () => {
    await kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]).catch(() => "");
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await tc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("the RGD as applied: no changes, exit 0", async () => {
    const same = await kro(["diff", "-f", file("v1.yaml")]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(
      same.stdout,
      new RegExp(`^CustomResourceDefinition ${kind.toLowerCase()}s\\.kro\\.run: unchanged$`, "m"),
    );
    for (const name of INSTANCES) assert.match(same.stdout, new RegExp(`^${kind} ${ns}/${name}: no changes$`, "m"));
    assert.match(same.stdout, /^Summary: 3 instances, 0 would change$/m);
  });

  it("a field change over every instance, a removed node, a node turned off, a new node; deletion refused for an adopted object; nothing written", async () => {
    const before = await versions(ns);
    const text = await kro(["diff", "-f", file("v2.yaml")]);
    assert.equal(text.code, 1, text.stdout + text.stderr);
    assert.match(text.stdout, /^ {2}~ deploy: Deployment diff-\w+\/web-a changed$/m);
    assert.match(text.stdout, /^ {6}spec\.replicas: 1 → 2$/m);
    assert.match(text.stdout, /^ {2}\+ note: ConfigMap diff-\w+\/web-a-note created$/m);
    assert.match(text.stdout, /^ {2}- svc: Service diff-\w+\/web-a deleted: resource "svc" is no longer in the RGD$/m);
    assert.match(
      text.stdout,
      /^ {2}- extra: ConfigMap diff-\w+\/web-b-extra deleted: excluded \(includeWhen is false\)$/m,
    );
    assert.match(
      text.stdout,
      /^ {2}! svc: Service diff-\w+\/web-c not deleted: refused: resource "svc" is no longer in the RGD; the adopted object's record does not match the graph$/m,
    );
    assert.match(text.stdout, /^Summary: 3 instances, 3 would change:$/m);
    assert.match(text.stdout, /^ {2}3 ConfigMap \(note\) created$/m);
    assert.match(text.stdout, /^ {2}3 Deployment \(deploy\) change spec\.replicas$/m);
    assert.match(text.stdout, /^ {2}2 Service \(svc\) deleted: resource "svc" is no longer in the RGD$/m);
    assert.match(text.stdout, /^ {2}1 ConfigMap \(extra\) deleted: excluded \(includeWhen is false\)$/m);
    assert.match(text.stdout, /^ {2}1 Service \(svc\) not deleted: refused/m);
    assert.doesNotMatch(text.stdout, /config: ConfigMap/, "an unchanged object is not listed");

    const json = await kro(["diff", "-f", file("v2.yaml"), "-o", "json"]);
    assert.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout) as DiffReport;
    assert.equal(report.served, true);
    assert.equal(report.crd?.action, "unchanged");
    const byName = new Map(report.instances.map((i) => [i.name, new Map(i.objects.map((o) => [o.nodeId, o]))]));
    for (const name of INSTANCES) {
      const objects = byName.get(name);
      assert.ok(objects !== undefined, name);
      assert.deepEqual(objects.get("deploy")?.fields, [{ path: "spec.replicas", before: 1, after: 2 }], name);
      assert.equal(objects.get("config")?.action, "unchanged", name);
      assert.equal(objects.get("note")?.action, "create", name);
      assert.equal(objects.get("svc")?.action, name === "web-c" ? "delete-refused" : "delete", name);
      assert.equal(objects.get("extra")?.action, name === "web-b" ? "delete" : "unchanged", name);
    }
    assert.deepEqual(await versions(ns), before, "kro diff wrote nothing");
  });

  it("a CRD change the breaking-change gate refuses: exit 3, and still nothing written", async () => {
    const before = await versions(ns);
    const refused = await kro(["diff", "-f", file("v3.yaml")]);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stdout,
      new RegExp(
        `^CustomResourceDefinition ${kind.toLowerCase()}s\\.kro\\.run: REFUSED by the breaking-change gate: cannot update CustomResourceDefinition .*breaking changes: .*tier`,
        "m",
      ),
    );
    assert.match(refused.stdout, /the controller keeps serving the current graph/);
    const json = JSON.parse((await kro(["diff", "-f", file("v3.yaml"), "-o", "json"])).stdout) as DiffReport;
    assert.equal(json.served, false);
    assert.equal(json.crd?.action, "refused");
    assert.ok(
      json.crd.breaking.some((c) => /tier/.test(c)),
      JSON.stringify(json.crd),
    );
    assert.deepEqual(await versions(ns), before, "kro diff wrote nothing");
  });

  it("an RGD the API server refuses (its kind is immutable) is refused, never an update: exit 3", async () => {
    await writeFile(
      file("v4.yaml"),
      `${rgdHeader(tc, rgdName)}${rgdSpec(V1)}`.replace(`kind: ${kind}\n`, `kind: ${kind}Two\n`),
    );
    const before = await versions(ns);
    const refused = await kro(["diff", "-f", file("v4.yaml")]);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    assert.match(
      refused.stdout,
      new RegExp(`^ResourceGraphDefinition ${rgdName}: REFUSED by the API server: .*kind is immutable`, "m"),
    );
    assert.doesNotMatch(refused.stdout, /CustomResourceDefinition .*: (created|updated)/);
    const json = JSON.parse((await kro(["diff", "-f", file("v4.yaml"), "-o", "json"])).stdout) as DiffReport;
    assert.equal(json.served, false);
    assert.match(json.rgdRefused ?? "", /kind is immutable/);
    assert.deepEqual(await versions(ns), before, "kro diff wrote nothing");
  });

  it("an RGD serving several versions: its CRD is judged with the controller's conversion webhook — unchanged as applied, updated by a new field", async () => {
    const mvName = `diff-mv-${letters}`;
    const mvKind = `DiffMv${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
    const mv = (note: boolean) => `${rgdHeader(tc, mvName)}
  schema:
    apiVersion: v1alpha1
    kind: ${mvKind}
    spec:
      size: integer | default=1${note ? '\n      note: string | default=""' : ""}
    versions:
      - name: v1beta1
        storage: true
        spec:
          replicas: integer | default=1${note ? '\n          note: string | default=""' : ""}
        conversion:
          toHub:
            spec:
              size: \${self.spec.replicas}${note ? "\n              note: ${self.spec.note}" : ""}
          fromHub:
            spec:
              replicas: \${self.spec.size}${note ? "\n              note: ${self.spec.note}" : ""}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-mv" }
        data: { size: "\${string(schema.spec.size)}" }
`;
    await writeFile(file("mv1.yaml"), mv(false));
    await writeFile(file("mv2.yaml"), mv(true));
    await kubectl(["apply", "-f", file("mv1.yaml")]);
    try {
      await waitRgdActive(mvName);
      const same = await kro(["diff", "-f", file("mv1.yaml")]);
      assert.equal(same.code, 0, same.stdout + same.stderr);
      assert.match(
        same.stdout,
        new RegExp(`^CustomResourceDefinition ${mvKind.toLowerCase()}s\\.kro\\.run: unchanged$`, "m"),
      );
      const added = await kro(["diff", "-f", file("mv2.yaml")]);
      assert.equal(added.code, 1, added.stdout + added.stderr);
      assert.match(
        added.stdout,
        new RegExp(`^CustomResourceDefinition ${mvKind.toLowerCase()}s\\.kro\\.run: updated$`, "m"),
      );
    } finally {
      await kubectl(["delete", "rgd", mvName, "--ignore-not-found", "--wait=false"]);
    }
  });

  it("-i: one changed instance against the RGD served now; an instance the API server refuses is exit 3", async () => {
    const before = await versions(ns);
    await writeFile(
      file("web-a.yaml"),
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: web-a\n  namespace: ${ns}\nspec:\n  replicas: 3\n`,
    );
    const one = await kro(["diff", "-i", file("web-a.yaml")]);
    assert.equal(one.code, 1, one.stdout + one.stderr);
    assert.match(one.stdout, /^ {2}~ the instance itself changes$/m);
    assert.match(one.stdout, /^ {6}spec\.replicas: 1 → 3$/m);
    assert.match(one.stdout, /^ {2}~ deploy: Deployment diff-\w+\/web-a changed$/m);
    assert.match(one.stdout, /^ {2}~ config: ConfigMap diff-\w+\/web-a-config changed$/m);
    assert.match(one.stdout, /^ {6}data\.replicas: "1" → "3"$/m);
    assert.match(one.stdout, /^Summary: 1 instance, 1 would change:$/m);

    await writeFile(
      file("bad.yaml"),
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: web-a\n  namespace: ${ns}\nspec:\n  replicas: many\n`,
    );
    const bad = await kro(["diff", "-i", file("bad.yaml")]);
    assert.equal(bad.code, 3, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /web-a: cannot be previewed: the API server refuses the instance: .*spec\.replicas/);

    const missing = await kro(["diff", "-f", file("nope.yaml")]);
    assert.equal(missing.code, 2, missing.stdout + missing.stderr);
    assert.deepEqual(await versions(ns), before, "kro diff wrote nothing");
  });
});
