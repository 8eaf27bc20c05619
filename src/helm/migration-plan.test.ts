import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  describePlan,
  describeReleaseHooks,
  fieldChanges,
  identityKey,
  identityOf,
  manifestObjects,
  planMigration,
} from "./migration-plan.js";

const manifest = `---
# Source: nginx/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web-nginx
spec:
  ports: [{ port: 80, targetPort: http }]
---
# Source: nginx/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-nginx
spec:
  replicas: 2
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: nginx, image: "nginx:1.21.0" }] }
---
# Source: nginx/templates/extra.yaml
apiVersion: v1
kind: ConfigMap
metadata: { name: extra, namespace: elsewhere }
`;

const live = (object: Record<string, unknown>, uid: string, extra: Record<string, unknown> = {}) => {
  const metadata = object.metadata as Record<string, unknown>;
  return {
    ...object,
    ...extra,
    metadata: { ...metadata, uid, resourceVersion: "7", labels: { "app.kubernetes.io/managed-by": "Helm" } },
    status: { replicas: 2 },
  };
};

describe("planMigration", () => {
  const release = manifestObjects(manifest, "prod");
  const [service, deployment] = release;
  if (service === undefined || deployment === undefined) throw new Error("fixture");
  const liveMap = (objects: Record<string, unknown>[]) => new Map(objects.map((o) => [identityKey(identityOf(o)), o]));

  it("reads the manifest's objects, defaulting the release namespace", () => {
    assert.deepEqual(
      release.map((o) => identityKey(identityOf(o))),
      ["/Service/prod/web-nginx", "apps/Deployment/prod/web-nginx", "/ConfigMap/elsewhere/extra"],
    );
  });

  it("an import that renders what Helm rendered adopts without changes (kro's labels and defaults are not changes)", () => {
    const desired = [
      { ...service, metadata: { name: "web-nginx", namespace: "prod", labels: { "kro.run/owned": "true" } } },
      {
        ...deployment,
        apiVersion: "apps/v1",
        metadata: { name: "web-nginx", namespace: "prod", labels: { "kro.run/owned": "true" } },
        spec: { ...(deployment.spec as object), replicas: "2" },
      },
    ];
    const defaulted = live(deployment, "u2", {
      spec: { ...(deployment.spec as object), strategy: { type: "RollingUpdate" } },
    });
    const extra = release[2] ?? assert.fail("fixture");
    const plan = planMigration(desired, release, liveMap([live(service, "u1"), defaulted, live(extra, "u3")]));
    assert.deepEqual(
      plan.adopt.map((a) => [a.uid, a.changes.length, a.restarts.length]),
      [
        ["u1", 0, 0],
        ["u2", 0, 0],
      ],
    );
    assert.deepEqual(plan.create, []);
    assert.deepEqual(
      plan.leftBehind.map((id) => id.name),
      ["extra"],
    );
    assert.match(
      describePlan(plan).join("\n"),
      /Deployment prod\/web-nginx \(uid u2\): adopt in place, unchanged[\s\S]*ConfigMap elsewhere\/extra: in the release but not in the import, left as it is/,
    );
  });

  it("names a pod-template change as a restart and a replica change as a plain change", () => {
    const desired = [
      {
        ...deployment,
        spec: {
          replicas: 3,
          template: {
            metadata: { labels: { app: "web", "helm.sh/revision": "1" } },
            spec: { containers: [{ name: "nginx", image: "nginx:1.21.0" }] },
          },
        },
      },
    ];
    const plan = planMigration(desired, release, liveMap([live(deployment, "u2")]));
    const [adopted] = plan.adopt;
    assert.deepEqual(
      adopted?.changes.map((c) => c.path),
      ["spec.replicas", "spec.template.metadata.labels.helm.sh/revision"],
    );
    assert.deepEqual(
      adopted.restarts.map((c) => c.path),
      ["spec.template.metadata.labels.helm.sh/revision"],
    );
    assert.match(
      describePlan(plan).join("\n"),
      /ROLLS ITS PODS \[not checked by the API server; compared offline\]\n {6}spec\.replicas: 2 -> 3\n {6}spec\.template\.metadata\.labels\.helm\.sh\/revision: \(unset\) -> "1"/,
    );
    assert.deepEqual(plan.create, []);
    assert.deepEqual(
      plan.leftBehind,
      [],
      "only live objects are left behind (the Service and ConfigMap are not live here)",
    );
  });

  it("the API server's dry run decides about restarts: a zero value it drops is no restart, a changed image is", () => {
    // The chart renders `hostNetwork: false`; the API server drops it, so the text diff sees "(unset) -> false".
    const rendered = {
      ...deployment,
      spec: {
        replicas: 2,
        template: {
          metadata: { labels: { app: "web" } },
          spec: { hostNetwork: false, containers: [{ name: "nginx", image: "nginx:1.21.0" }] },
        },
      },
    };
    const current = live(deployment, "u2");
    const key = identityKey(identityOf(current));
    const offline = planMigration([rendered], release, liveMap([current]));
    assert.deepEqual(
      offline.adopt[0]?.restarts.map((c) => c.path),
      ["spec.template.spec.hostNetwork"],
      "offline, the text diff predicts a restart",
    );
    const stored = { ...current, metadata: { ...(current.metadata as object), labels: { "kro.run/owned": "true" } } };
    const checked = planMigration([rendered], release, liveMap([current]), new Map([[key, { stored }]]));
    assert.deepEqual(
      checked.adopt.map((a) => [a.restarts.length, a.checkedBy]),
      [[0, "server"]],
    );
    assert.match(
      describePlan(checked).join("\n"),
      /Deployment prod\/web-nginx \(uid u2\): adopt in place, unchanged$/m,
    );

    const newImage = {
      ...stored,
      spec: {
        replicas: 2,
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.25.0" }] },
        },
      },
    };
    const rolls = planMigration([rendered], release, liveMap([current]), new Map([[key, { stored: newImage }]]));
    assert.deepEqual(
      rolls.adopt[0]?.restarts.map((c) => [c.path, c.desired]),
      [["spec.template.spec.containers[0].image", "nginx:1.25.0"]],
    );
  });

  it("a stored template that only loses a field is still a restart; a refused dry run falls back to the text, saying why", () => {
    const current = live(deployment, "u2", {
      spec: {
        replicas: 2,
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.21.0" }], dnsPolicy: "None" },
        },
      },
    });
    const key = identityKey(identityOf(current));
    const lost = {
      ...current,
      spec: {
        replicas: 2,
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.21.0" }] },
        },
      },
    };
    const plan = planMigration([deployment], release, liveMap([current]), new Map([[key, { stored: lost }]]));
    assert.deepEqual(
      plan.adopt[0]?.restarts.map((c) => c.path),
      ["spec.template"],
    );
    const refused = planMigration(
      [deployment],
      release,
      liveMap([current]),
      new Map([[key, { refused: "403 Forbidden: cannot patch deployments" }]]),
    );
    assert.deepEqual(refused.adopt[0]?.checkedBy, {
      offline: "the dry run was refused: 403 Forbidden: cannot patch deployments",
    });
    assert.match(
      describePlan(refused).join("\n"),
      /\[the dry run was refused: 403 Forbidden: cannot patch deployments; compared offline\]/,
    );
  });

  it("an object the import renders that is not live is to be created; a hook is said to run", () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "db-migrate", namespace: "prod", annotations: { "helm.sh/hook": "pre-install,pre-upgrade" } },
    };
    const plan = planMigration([service, job], [...release, job], new Map());
    assert.deepEqual(
      plan.create.map((id) => [id.kind, id.hook]),
      [
        ["Service", undefined],
        ["Job", "pre-install,pre-upgrade"],
      ],
    );
    assert.match(
      describePlan(plan).join("\n"),
      /Job prod\/db-migrate: a Helm hook \(pre-install,pre-upgrade\) the controller will create, so it RUNS/,
    );
  });

  it("a live hook the adopting instance does not render (it ran under Helm) is left as it is, said so", () => {
    const job = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "db-migrate", namespace: "prod", annotations: { "helm.sh/hook": "pre-install,pre-upgrade" } },
    };
    const plan = planMigration([], [job], liveMap([live(job, "u9")]));
    assert.deepEqual(
      plan.leftBehind.map((id) => [id.name, id.hook]),
      [["db-migrate", "pre-install,pre-upgrade"]],
    );
    assert.match(
      describePlan(plan).join("\n"),
      /Job prod\/db-migrate: a Helm hook \(pre-install,pre-upgrade\) that ran under Helm, left as it is/,
    );
  });
});

describe("test hooks are not said to have run", () => {
  const hook = (name: string, events: string[], phase = "") => ({
    name,
    kind: "Pod",
    path: "",
    events,
    manifest: "",
    lastRun: { phase, startedAt: "", completedAt: phase === "" ? "" : "2026-12-01T02:48:15Z" },
  });

  it("a live test hook (left by `helm test`) is one Helm runs only on helm test, not one that ran under Helm", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-test", namespace: "prod", annotations: { "helm.sh/hook": "test" } },
    };
    const text = describePlan(planMigration([], [pod], new Map([[identityKey(identityOf(pod)), pod]]))).join("\n");
    assert.match(
      text,
      /Pod prod\/web-test: a Helm test hook \(test\), run only by `helm test` \(never at install or upgrade\)/,
    );
    assert.doesNotMatch(text, /ran under Helm/);
  });

  it("the release's hooks: lifecycle hooks ran under Helm, test hooks not run (or their last helm test)", () => {
    const lines = describeReleaseHooks([
      hook("migrate", ["pre-install", "pre-upgrade"], "Succeeded"),
      hook("web-test", ["test"]),
      hook("smoke", ["test-success"], "Failed"),
    ]);
    assert.equal(lines.length, 2);
    assert.match(
      lines[0] ?? "",
      /1 hook\(s\) that ran under Helm as their events say \(Pod\/migrate \[pre-install,pre-upgrade\]\)/,
    );
    assert.doesNotMatch(lines[0] ?? "", /web-test|smoke/);
    assert.match(
      lines[1] ?? "",
      /2 test hook\(s\), which Helm runs only on `helm test`, never at install or upgrade \(Pod\/web-test: not run, Pod\/smoke: last helm test Failed at 2026-12-01T02:48:15Z\); kro-ts has no `helm test` and never runs them/,
    );
    assert.deepEqual(
      describeReleaseHooks([hook("web-test", ["test"])]).filter((l) => /ran under Helm/.test(l)),
      [],
    );
  });
});

describe("fieldChanges", () => {
  const cases: [string, unknown, unknown, string[]][] = [
    ["equal maps", { a: 1, b: { c: "x" } }, { a: 1, b: { c: "x" } }, []],
    ["extra live fields are not changes", { a: 1, z: 2 }, { a: 1 }, []],
    ["a changed scalar deep down", { a: { b: [{ c: 1 }] } }, { a: { b: [{ c: 2 }] } }, ["a.b[0].c"]],
    ["a list of another length", { l: [1, 2] }, { l: [1] }, ["l"]],
    ['80 and "80" are one port', { p: 80 }, { p: "80" }, []],
    ['true and "true" are not', { b: true }, { b: "true" }, ["b"]],
    ["null desired over an absent field", {}, { x: null }, []],
    ["a map where a scalar was", { x: 1 }, { x: { y: 1 } }, ["x"]],
  ];
  for (const [what, liveValue, desired, paths] of cases) {
    it(what, () => {
      assert.deepEqual(
        fieldChanges(liveValue, desired).map((c) => c.path),
        paths,
      );
    });
  }
});
