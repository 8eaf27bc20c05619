// The controller's web endpoint (`kro controller --ui-bind-address`) against the real control
// plane, with real ServiceAccount tokens (TokenRequest, as `kubectl create token`): no token or a
// bad one gets 401 and nothing of the cluster; an admin sees the RGD, its picture and every
// instance; a tenant with rights in one namespace sees only that namespace's instances; a user
// who may read nothing sees nothing — not even the RGD's picture — although the controller
// itself may read everything. Then the same in headless Chromium: the sign-in form, and a page
// refreshing live with an Authorization header.
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { kubectl, testCluster } from "../support/test-cluster.js";
import { letterSuffix, waitRgdActive } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { eventually } from "../support/eventually.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CHROMIUM = process.env.KRO_TEST_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const letters = letterSuffix();
const kind = `CtlUi${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `ctl-ui-${letters}`;
const label = { key: "kro-ts.test/controller", value: `ctl-ui-${letters}` };
const nsA = `ctl-ui-a-${letters}`;
const nsB = `ctl-ui-b-${letters}`;

const rgd = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${label.key}: "${label.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      flag: string | default="off"
  resources:
    - id: config
      readyWhen:
        - \${config.data.flag == "on"}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { flag: "\${schema.spec.flag}" }
`;

const instance = (ns: string, name: string, flag: string): string =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec: { flag: "${flag}" }\n`;

interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

async function get(url: string, token?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers },
    redirect: "manual",
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** Runs `check` on the page; on failure saves what the browser showed and says where. */
async function seeing(t: TestContext, page: Page, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const dir = path.join(ROOT, ".kro-test-logs");
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `controller-ui-failure-${t.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n(screenshot of the page: ${file})`, {
      cause: error,
    });
  }
}

describe("the controller's web endpoint", { timeout: 300_000 }, () => {
  let controller: ControllerProcess;
  let url: string;
  let admin: string;
  let viewer: string;
  let nobody: string;
  let browser: BrowserContext | undefined;
  let profile: string | undefined;

  before(async () => {
    controller = await startControllerProcess(testCluster().kubeconfig, [
      "--rgd-selector",
      `${label.key}=${label.value}`,
      "--ui-bind-address",
      "127.0.0.1:0",
    ]);
    const serving = /web view serving.*?(http:\/\/127\.0\.0\.1:\d+\/)/.exec(controller.output());
    assert.ok(serving?.[1] !== undefined, `the controller names its web view's address:\n${controller.output()}`);
    url = serving[1];
    await kubectl(["apply", "-f", "-"], rgd);
    await waitRgdActive(rgdName);
    await kubectl(["create", "namespace", nsA]);
    await kubectl(["create", "namespace", nsB]);
    await kubectl(["apply", "-f", "-"], [instance(nsA, "web", "off"), instance(nsB, "hidden-b", "on")].join("---\n"));
    for (const sa of ["admin", "viewer", "nobody"]) await kubectl(["create", "serviceaccount", sa, "-n", nsA]);
    await kubectl([
      "create",
      "clusterrolebinding",
      `ctl-ui-admin-${letters}`,
      "--clusterrole=cluster-admin",
      `--serviceaccount=${nsA}:admin`,
    ]);
    // The tenant may read RGDs (cluster-wide) and, in its own namespace only, the instances, their children and Events.
    await kubectl([
      "create",
      "clusterrole",
      `ctl-ui-rgd-reader-${letters}`,
      "--verb=get,list",
      "--resource=resourcegraphdefinitions.kro.run",
    ]);
    await kubectl([
      "create",
      "clusterrolebinding",
      `ctl-ui-rgd-reader-${letters}`,
      `--clusterrole=ctl-ui-rgd-reader-${letters}`,
      `--serviceaccount=${nsA}:viewer`,
    ]);
    // In its own namespace the tenant may read the instances, their children and Events.
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "viewer", namespace: nsA },
        rules: [
          { apiGroups: ["kro.run"], resources: [plural], verbs: ["get", "list"] },
          { apiGroups: [""], resources: ["configmaps", "events"], verbs: ["get", "list"] },
        ],
      }),
    );
    await kubectl(["create", "rolebinding", "viewer", "-n", nsA, "--role=viewer", `--serviceaccount=${nsA}:viewer`]);
    // Tokens from the TokenRequest API, as `kubectl create token` gives a person.
    const token = async (sa: string): Promise<string> =>
      (await kubectl(["create", "token", sa, "-n", nsA, "--duration=3600s"])).trim();
    [admin, viewer, nobody] = [await token("admin"), await token("viewer"), await token("nobody")];
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    if (profile !== undefined) await rm(profile, { recursive: true, force: true });
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "namespace", nsA, nsB, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl([
      "delete",
      "clusterrole,clusterrolebinding",
      `ctl-ui-rgd-reader-${letters}`,
      "--ignore-not-found",
    ]).catch(() => "");
    await kubectl(["delete", "clusterrolebinding", `ctl-ui-admin-${letters}`, "--ignore-not-found"]).catch(() => "");
    await controller.stop();
  });

  it("answers 401 and nothing of the cluster without a token, with a bad one, or with impersonation headers", async () => {
    const picture = `graph.svg?rgd=${rgdName}&generation=1`;
    for (const [what, token, headers] of [
      ["no token", undefined, {}],
      ["an invalid token", "not-a-real-token", {}],
      ["a forged JWT", `${admin.slice(0, -8)}AAAAAAAA`, {}],
      [
        "impersonation headers alone",
        undefined,
        { "impersonate-user": "system:admin", "impersonate-group": "system:masters" },
      ],
      ["basic auth", undefined, { authorization: "Basic YWRtaW46YWRtaW4=" }],
    ] as const) {
      for (const route of [
        "",
        "view",
        picture,
        `view?namespace=${nsB}`,
        `rgds/${rgdName}`,
        `instances/${rgdName}/${nsB}/hidden-b`,
      ]) {
        const answer = await get(`${url}${route}`, token, headers);
        assert.equal(answer.status, 401, `${what} → /${route}`);
        assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
        for (const secret of [rgdName, kind, "hidden-b", nsB])
          assert.doesNotMatch(answer.body, new RegExp(secret), `${what} → /${route} shows ${secret}`);
      }
    }
    const refused = await get(url, "not-a-real-token");
    assert.match(refused.body, /the API server does not accept this token/);
  });

  it("shows an admin the RGD, its picture and the instances of every namespace", async () => {
    await eventually(
      async () => {
        const view = await get(`${url}view`, admin);
        assert.equal(view.status, 200);
        assert.match(view.body, new RegExp(`data-rgd="${rgdName}" data-state="ready"`));
        assert.match(view.body, new RegExp(`data-instance="${nsA}/web" data-state="in-progress"`));
        assert.match(view.body, new RegExp(`data-instance="${nsB}/hidden-b" data-state="ready"`));
        assert.match(view.body, /<td class="muted">all namespaces<\/td>/);
        assert.match(view.body, new RegExp(`as system:serviceaccount:${nsA}:admin`));
        const page = await get(`${url}instances/${rgdName}/${nsA}/web?fragment=1`, admin);
        assert.match(
          page.body,
          /data-node="config">.*<td>ConfigMap<\/td><td>web<\/td>/,
          "the tree read with the admin's token",
        );
      },
      { timeout: 60_000 },
    );
    const generation = (await kubectl(["get", "rgd", rgdName, "-o", "jsonpath={.metadata.generation}"])).trim();
    const svg = await get(`${url}graph.svg?rgd=${rgdName}&generation=${generation}`, admin);
    assert.equal(svg.status, 200);
    assert.match(svg.body, /<svg/);
  });

  it("shows a tenant only its own namespace's instances", async () => {
    await eventually(
      async () => {
        const view = await get(`${url}view`, viewer);
        assert.equal(view.status, 200);
        assert.match(view.body, new RegExp(`data-rgd="${rgdName}"`));
        assert.match(view.body, new RegExp(`data-instance="${nsA}/web"`));
        assert.match(view.body, new RegExp(`namespace ${nsA} \\(listing all namespaces is not permitted\\)`));
        const page = await get(`${url}instances/${rgdName}/${nsA}/web?fragment=1`, viewer);
        assert.match(page.body, /data-node="config">.*<td>ConfigMap<\/td><td>web<\/td>/);
        assert.doesNotMatch(view.body, /hidden-b/, "another team's instance");
        assert.doesNotMatch(view.body, new RegExp(nsB), "another team's namespace, not even in Events");
      },
      { timeout: 30_000 },
    );
    const hidden = await get(`${url}instances/${rgdName}/${nsB}/hidden-b`, viewer);
    assert.equal(hidden.status, 200);
    assert.match(
      hidden.body,
      /not permitted:<\/strong> .*\/hidden-b — .*forbidden/,
      "a deep link to another team's instance",
    );
    assert.doesNotMatch(hidden.body, /<table/, "and nothing else of it");
    const other = await get(`${url}view?namespace=${nsB}`, viewer);
    assert.equal(other.status, 200);
    assert.doesNotMatch(other.body, /hidden-b/);
    assert.match(
      other.body,
      /not permitted:<\/strong> instances of/,
      "asking for another namespace gets the API server's refusal",
    );
  });

  it("shows a user who may read nothing nothing: no RGD, no instance, no picture", async () => {
    const view = await get(`${url}view`, nobody);
    assert.equal(view.status, 200);
    assert.match(
      view.body,
      new RegExp(
        `data-refused="ResourceGraphDefinitions"><strong>not permitted:</strong> ResourceGraphDefinitions — .*system:serviceaccount:${nsA}:nobody.* cannot list`,
      ),
    );
    assert.doesNotMatch(view.body, /data-rgd=|data-instance=/);
    for (const secret of [rgdName, kind, "hidden-b", 'web"'])
      assert.doesNotMatch(view.body, new RegExp(secret), `${secret} is not for this user`);
    const generation = (await kubectl(["get", "rgd", rgdName, "-o", "jsonpath={.metadata.generation}"])).trim();
    assert.equal(
      (await get(`${url}graph.svg?rgd=${rgdName}&generation=${generation}`, nobody)).status,
      404,
      "the controller serves this graph, but this user may not read its RGD",
    );
  });

  it("works in a browser: the sign-in form for a tenant, and a live page for an admin's header", async (t) => {
    assert.ok(
      existsSync(CHROMIUM),
      `${CHROMIUM} is missing: install the Debian package chromium (.ci/run does), or set KRO_TEST_CHROMIUM`,
    );
    profile = await mkdtemp(path.join(tmpdir(), "kro-ctl-ui-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    const page = await browser.newPage();
    await page.goto(url);
    await seeing(t, page, async () => {
      await page.locator("textarea#token").fill(viewer);
      await page.locator("button[type=submit]").click();
      await page.locator(`[data-instance="${nsA}/web"]`).waitFor({ timeout: 30_000 });
      const text = await page.locator("main").innerText();
      assert.match(text, new RegExp(`as system:serviceaccount:${nsA}:viewer`));
      assert.doesNotMatch(text, /hidden-b/);
    });
    await page.goto(`${url}sign-out`);
    await seeing(t, page, async () => {
      await page.locator("textarea#token").waitFor({ timeout: 10_000 });
      assert.equal(await page.locator("[data-rgd]").count(), 0, "signed out: nothing of the cluster");
    });
    await page.close();

    const adminContext = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const context = await adminContext.newContext({
        extraHTTPHeaders: { authorization: `Bearer ${admin}` },
        viewport: { width: 1280, height: 900 },
      });
      const live = await context.newPage();
      await live.goto(`${url}instances/${rgdName}/${nsA}/web`);
      await seeing(t, live, async () => {
        await live.locator(`[data-instance-page="${nsA}/web"][data-state="in-progress"]`).waitFor({ timeout: 30_000 });
        assert.ok(
          (await live
            .locator("img.graph")
            .evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0))) > 0,
          "the graph picture loaded",
        );
        await kubectl(["patch", plural, "web", "-n", nsA, "--type=merge", "-p", '{"spec":{"flag":"on"}}']);
        // No reload: the page's own refresh shows the change.
        await live
          .locator(`[data-instance-page="${nsA}/web"][data-state="ready"] tr.node.state-ready`)
          .first()
          .waitFor({ timeout: 60_000 });
        await live.locator("nav.crumbs a").first().click();
        await live.locator(`[data-instance="${nsB}/hidden-b"]`).waitFor({ timeout: 30_000 });
      });
    } finally {
      await adminContext.close();
    }
  });
});
