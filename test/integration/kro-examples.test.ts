/**
 * kro's own example shapes on the local cluster: each RGD under
 * test/fixtures/kro-examples/ (equivalents of kro's examples/kubernetes, written here) becomes
 * Active, its instance reaches ACTIVE with Ready=True and the status the example projects, and
 * deleting the instance leaves no child behind. The controller runs with the built-in schemas,
 * as `kro controller` does, so CRD kinds (the nested example) come from discovery.
 *
 * Written and deleted as a developer would, not as cluster-admin: a ServiceAccount whose only
 * right is the instance kind in its namespace (the RGD is the grant: children whose scope the RGD
 * fixes need nothing more; docs/design/authorization.md). The exception says why: coredns's spec
 * chooses the namespace and the cluster-scoped names, so its instance is an administrator's.
 */
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { schemaResolverFor } from "../../src/cli/inputs/inputs.js";
import {
  delegationStamp,
  letterSuffix,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

const DIR = fileURLToPath(new URL("../../../test/fixtures/kro-examples/", import.meta.url));
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort();
/** Every kind the examples create, to prove none is left once the instance is gone. */
const CHILD_KINDS =
  "deployments,services,ingresses,configmaps,serviceaccounts,jobs,clusterroles,clusterrolebindings,namespaces,resourcequotas";
/** Examples whose instance data chooses where children land without the RGD delegating it: written by an administrator. */
const AS_ADMIN = new Set(["coredns.yaml"]);

type Cond = { type: string; status: string; reason?: string; message?: string };
interface Instance {
  kind: string;
  metadata: { name: string; uid: string };
  status?: { state?: string; conditions?: Cond[] } & Record<string, unknown>;
}

interface Prepared {
  readonly rgds: { name: string; text: string }[];
  readonly instance: string;
  readonly instanceName: string;
  readonly outerKind: string;
  readonly clusterIP: string;
}

/** Unique names and kinds per run (several test files share one API server), and the test controller's label. */
function prepare(text: string, tc: TestController): Prepared {
  const suffix = letterSuffix();
  const clusterIP = `10.100.${randomInt(1, 255)}.${randomInt(1, 255)}`;
  const renamed = text
    .replace(/\bExample([A-Za-z]*?)App\b/g, `Example$1X${suffix}App`)
    .replace(/^ {2}name: (example-[a-z-]+)$/gm, `  name: $1-${suffix}`)
    .replace(/^ {2}labels: \{\}$/gm, `  labels: { ${tc.label.key}: "${tc.label.value}" }`)
    .replaceAll("10.100.123.45", clusterIP);
  const documents = renamed
    .split(/^---$/m)
    .map((d) => d.trim())
    .filter((d) => d !== "");
  const rgds = documents
    .filter((d) => /^kind: ResourceGraphDefinition$/m.test(d))
    .map((d) => ({ name: /^ {2}name: (\S+)$/m.exec(d)?.[1] ?? "", text: d }));
  const [instanceText] = documents.filter((d) => !/^kind: ResourceGraphDefinition$/m.test(d));
  assert.ok(instanceText !== undefined, "each example carries one instance after its RGDs");
  const instance = instanceText.replace(/^( {2}name: )([a-z]+)$/gm, `$1$2-${suffix}`);
  return {
    rgds,
    instance,
    clusterIP,
    instanceName: /^ {2}name: (\S+)$/m.exec(instance)?.[1] ?? "",
    outerKind: /^kind: (\S+)$/m.exec(instance)?.[1] ?? "",
  };
}

const plural = (kind: string): string => `${kind.toLowerCase()}s`;
const cond = (o: Instance, type: string): Cond | undefined => o.status?.conditions?.find((c) => c.type === type);

/** What each example's status must show once ACTIVE (beyond state and Ready). */
type StatusCheck = (status: Record<string, unknown>, o: Instance, p: Prepared, ns: string) => Promise<void> | void;
const STATUS_CHECKS: Record<string, StatusCheck> = {
  "webapp.yaml": (s) => {
    assert.equal(s.availableReplicas, 2);
    assert.ok(Array.isArray(s.deploymentConditions) && s.deploymentConditions.length > 0);
    assert.equal(s.url, undefined, "the ingress is excluded: url is omitted");
  },
  "job.yaml": (s) => {
    assert.match(String(s.completedAt), /^\d{4}-\d\d-\d\dT/);
  },
  "configmap-checksum.yaml": (s) => {
    assert.match(String(s.checksum), /^[0-9a-f]{64}$/);
  },
  "custom-types.yaml": (s) => {
    assert.equal(s.entries, 2);
  },
  // No readyWhen on the Deployment (as in kro's example): ACTIVE may come before the count.
  "cel-functions.yaml": async (s, o, _p, ns) => {
    assert.equal(s.availableTimesTen, 10);
    const env = await kubectl([
      "get",
      "deployment",
      o.metadata.name,
      "-n",
      ns,
      "-o",
      "jsonpath={.spec.template.spec.containers[0].env}",
    ]);
    const values = Object.fromEntries(
      (JSON.parse(env) as { name: string; value: string }[]).map((e) => [e.name, e.value]),
    );
    assert.deepEqual(
      [values.FIRST_LABEL, values.PARENT_DOMAIN, values.TOTAL, values.FROM_JSON, values.SIZE_CLASS],
      ["a", "b.c", "600", "value", "small"],
    );
    assert.equal(values.TO_JSON, JSON.stringify({ name: o.metadata.name }));
    assert.match(values.SEEDED ?? "", /^[A-Za-z0-9]{8}$/);
  },
  "coredns.yaml": async (_s, o, p, ns) => {
    const ip = await kubectl(["get", "service", o.metadata.name, "-n", ns, "-o", "jsonpath={.spec.clusterIP}"]);
    assert.equal(ip, p.clusterIP, "the fixed clusterIP from kind's service range is accepted");
    await kubectl(["get", "clusterrolebinding", o.metadata.name]);
  },
  "printer-defaults.yaml": async (s, o, _p, ns) => {
    assert.equal(s.summary, "a,b,c/2/200/standard", "the API server applied the schema defaults");
    assert.equal(s.availableReplicas, 2);
    const row = await kubectl(["get", `${o.kind.toLowerCase()}s.kro.run`, o.metadata.name, "-n", ns, "--no-headers"]);
    // kro (pkg/graph/crd/crd.go newCRDAdditionalPrinterColumns): the author's columns replace the defaults.
    assert.match(row, new RegExp(`^${o.metadata.name}\\s+2\\s+nginx\\s+true\\s*$`, "m"));
  },
  "tenant.yaml": async (s, o) => {
    assert.equal(s.namespace, `tenant-${o.metadata.name}`);
    assert.equal(s.pods, "10");
    await kubectl(["get", "resourcequota", `${o.metadata.name}-quota`, "-n", `tenant-${o.metadata.name}`]);
  },
  "nested.yaml": (s, o) => {
    assert.deepEqual([s.devAccount, s.prodAccount], [`${o.metadata.name}-dev`, `${o.metadata.name}-prod`]);
  },
};

/** A ServiceAccount allowed only instances of `plural` in `ns`: its user name for `kubectl --as`. */
async function developer(ns: string, plural: string): Promise<string> {
  await kubectl(["create", "serviceaccount", "dev", "-n", ns]);
  await kubectl([
    "create",
    "role",
    "instances-only",
    "-n",
    ns,
    `--resource=${plural}.kro.run`,
    "--verb=get,list,watch,create,update,patch,delete",
  ]);
  await kubectl(["create", "rolebinding", "dev", "-n", ns, "--role=instances-only", `--serviceaccount=${ns}:dev`]);
  return `system:serviceaccount:${ns}:dev`;
}

/** An RGD that delegates records who wrote it (the kro-delegation policy refuses it otherwise). */
async function stamped(rgd: string): Promise<string> {
  if (!rgd.includes("kro.run/author-check-exempt:")) return rgd;
  const stamp = await delegationStamp();
  const lines = Object.entries(stamp).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
  return rgd.replace(/^ {2}annotations:\n/m, `  annotations:\n${lines.join("\n")}\n`);
}

describe("kro's example shapes on the local cluster", { timeout: 600_000 }, () => {
  let tc: TestController;
  const cleanup: string[][] = [];
  before(async () => {
    tc = await startTestController({ resolver: await schemaResolverFor() });
  });
  after(async () => {
    await tc.stop();
    for (const args of cleanup) await kubectl(["delete", ...args, "--wait=false", "--ignore-not-found"]);
  });

  it("covers every fixture with a status check", () => {
    assert.deepEqual(FIXTURES, Object.keys(STATUS_CHECKS).sort());
  });

  for (const file of FIXTURES) {
    it(`${file}: the RGDs become Active, the instance ACTIVE, and deleting it leaves nothing behind`, async (t) => {
      const p = prepare(readFileSync(path.join(DIR, file), "utf8"), tc);
      const ns = await testNamespace(t, `ex-${file.replace(/\.yaml$/, "")}`);
      // Inner RGDs first: an outer RGD whose child kind is not served yet is rejected and retried.
      for (const rgd of p.rgds) {
        cleanup.push(["rgd", rgd.name]);
        await kubectl(["apply", "-f", "-"], await stamped(rgd.text));
      }
      for (const rgd of p.rgds) await waitRgdActive(rgd.name);

      const user = AS_ADMIN.has(file) ? [] : [`--as=${await developer(ns, plural(p.outerKind))}`];
      await kubectl([...user, "apply", "-n", ns, "-f", "-"], p.instance.replaceAll("__NAMESPACE__", ns));
      const resource = `${plural(p.outerKind)}.kro.run`;
      const active = await eventually(
        async () => {
          const o = await kubectlJson<Instance>(["get", resource, p.instanceName, "-n", ns]);
          assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
          assert.equal(cond(o, "Ready")?.status, "True", JSON.stringify(o.status));
          return o;
        },
        { timeout: 150_000, interval: 1_000 },
      );
      const check = STATUS_CHECKS[file];
      assert.ok(check !== undefined);
      await eventually(
        async () => {
          const o = await kubectlJson<Instance>(["get", resource, p.instanceName, "-n", ns]);
          await check(o.status ?? {}, o, p, ns);
        },
        { timeout: 60_000, interval: 1_000 },
      );

      // Every instance involved (the nested example's inner ones too): their children must go.
      const uids = [active.metadata.uid];
      for (const rgd of p.rgds.slice(0, -1)) {
        const kind = /^ {4}kind: (\S+)$/m.exec(rgd.text)?.[1] ?? "";
        const inner = await kubectlJson<{ items: Instance[] }>(["get", `${plural(kind)}.kro.run`, "-n", ns]);
        uids.push(...inner.items.map((i) => i.metadata.uid));
      }
      await kubectl([...user, "delete", resource, p.instanceName, "-n", ns, "--timeout=120s"]);
      await eventually(
        async () => {
          for (const uid of uids) {
            const left = (
              await kubectl(["get", CHILD_KINDS, "-A", "-l", `kro.run/instance-id=${uid}`, "-o", "name"])
            ).trim();
            assert.equal(left, "", `children of instance ${uid} left behind`);
          }
        },
        { timeout: 60_000, interval: 1_000 },
      );
    });
  }
});
