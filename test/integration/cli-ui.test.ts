// `kro ui` in a real browser (headless Chromium from the Debian package, driven by
// playwright-core) against the real control plane and controller: the RGD list, an instance
// turning from not Ready to Ready on the page, an apply error shown, and people with fewer rights
// (real ServiceAccount tokens) seeing only what RBAC lets them read. The passing page is saved as
// docs/images/kro-ui.png (the README's screenshot); a failing one next to the test logs.
import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { kubectl, testCluster } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { startCli, type CliSession } from "../support/cli-session.js";
import { serviceAccountKubeconfig } from "../support/service-account.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CHROMIUM = process.env.KRO_TEST_CHROMIUM ?? "/usr/bin/chromium";
// Without the background-networking flags Chromium's own connections are refused on CI machines.
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
const kind = `UiWeb${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `ui-web-${letters}`;

// config is ready once spec.flag is "on"; portal is refused by the API server when spec.port is out of range.
const rgdSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      flag: string | default="off"
      port: integer | default=80
  resources:
    - id: config
      readyWhen:
        - \${config.data.flag == "on"}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { flag: "\${schema.spec.flag}" }
    - id: portal
      template:
        apiVersion: v1
        kind: Service
        metadata: { name: "\${schema.metadata.name}-portal" }
        spec: { ports: [{ port: "\${schema.spec.port}" }] }
`;

const instance = (ns: string, name: string, spec: string): string =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec: ${spec}\n`;

async function startUi(kubeconfig: string, label: string): Promise<{ session: CliSession; url: string }> {
  const session = startCli([
    "ui",
    "--port",
    "0",
    "--interval",
    "500ms",
    "--selector",
    label,
    "--kubeconfig",
    kubeconfig,
  ]);
  const match = await session.waitFor(/kro ui: serving (http:\/\/127\.0\.0\.1:\d+\/)/, 30_000);
  return { session, url: match[1] ?? "" };
}

/** Runs `check` on the page; on failure saves what the browser showed and says where. */
async function seeing(t: TestContext, page: Page, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const dir = path.join(ROOT, ".kro-test-logs");
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `kro-ui-failure-${t.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n(screenshot of the page: ${file})`, {
      cause: error,
    });
  }
}

describe("kro ui in a browser", { timeout: 300_000 }, () => {
  let tc: TestController;
  let browser: BrowserContext;
  let profile: string;
  let label: string;
  let nsA: string;
  let nsB: string;
  const sessions: CliSession[] = [];

  before(async () => {
    assert.ok(
      existsSync(CHROMIUM),
      `${CHROMIUM} is missing: install the Debian package chromium (.ci/run does), or set KRO_TEST_CHROMIUM`,
    );
    tc = await startTestController();
    label = `${tc.label.key}=${tc.label.value}`;
    profile = await mkdtemp(path.join(tmpdir(), "kro-ui-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    await kubectl(["apply", "-f", "-"], `${rgdHeader(tc, rgdName)}${rgdSpec}`);
    await waitRgdActive(rgdName);
    nsA = `ui-team-a-${letters}`;
    nsB = `ui-team-b-${letters}`;
    await kubectl(["create", "namespace", nsA]);
    await kubectl(["create", "namespace", nsB]);
    await kubectl(
      ["apply", "-f", "-"],
      [
        instance(nsA, "web", '{ flag: "off" }'),
        instance(nsA, "broken", "{ port: 70000 }"),
        instance(nsB, "hidden-b", '{ flag: "on" }'),
      ].join("---\n"),
    );
  });
  after(async () => {
    for (const s of sessions) s.kill();
    await browser.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
    await kubectl(["delete", "rgd", rgdName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "namespace", nsA, nsB, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "clusterrole,clusterrolebinding", `ui-rgd-reader-${letters}`, "--ignore-not-found"]).catch(
      () => "",
    );
    await tc.stop();
  });

  it("lists the RGD, shows an apply error, and turns an instance from not Ready to Ready live", async (t) => {
    const { session, url } = await startUi(testCluster().kubeconfig, label);
    sessions.push(session);
    const page = await browser.newPage();
    await page.goto(url);
    await seeing(t, page, async () => {
      const rgd = page.locator(`[data-rgd="${rgdName}"]`);
      await rgd.waitFor({ timeout: 30_000 });
      assert.equal(await rgd.getAttribute("data-state"), "ready");
      assert.match(await rgd.locator("h3").innerText(), new RegExp(`${rgdName} Active ${kind}`));
      assert.equal(await page.locator("[data-rgd]").count(), 1, "only the RGDs the selector names");
      assert.ok(
        (await page
          .locator("img.graph")
          .evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0))) > 0,
        "the graph picture loaded",
      );

      const broken = page.locator(`[data-instance="${nsA}/broken"]`);
      await page
        .locator(`[data-instance="${nsA}/broken"][data-state="error"] li[data-state="error"]`)
        .waitFor({ timeout: 60_000 });
      assert.match(
        await broken.locator('li[data-state="error"]').innerText(),
        /portal: Service\s+error\s+apply Service .*must be between 1 and 65535/,
      );
      assert.match(await broken.locator("table.conditions").innerText(), /Ready\s+False/);

      const web = page.locator(`[data-instance="${nsA}/web"]`);
      await page.locator(`[data-instance="${nsA}/web"][data-state="not-ready"]`).waitFor({ timeout: 60_000 });
      assert.match(
        await web.locator("li").first().innerText(),
        /config: ConfigMap\/web\s+waiting for readiness\s+readyWhen is not true yet: config\.data\.flag == "on"/,
      );
      assert.equal(
        await page.locator(`[data-instance="${nsB}/hidden-b"]`).count(),
        1,
        "the admin sees every namespace",
      );

      await kubectl(["patch", plural, "web", "-n", nsA, "--type=merge", "-p", '{"spec":{"flag":"on"}}']);
      // No reload: the page's own refresh shows the change.
      await page
        .locator(`[data-instance="${nsA}/web"][data-state="ready"] li.state-ready`)
        .first()
        .waitFor({ timeout: 60_000 });
      assert.match(await web.locator("h4").innerText(), /Ready/);
      assert.match(
        await page.locator("#events").innerText(),
        new RegExp(`${kind}/${nsA}/`),
        "recent Events about the instances",
      );
    });
    await page.locator(`[data-instance="${nsB}/hidden-b"][data-state="ready"]`).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(ROOT, "docs/images/kro-ui.png"), fullPage: true });
    await page.close();
  });

  it("shows a tenant only its own namespace, and a user without rights nothing but not permitted", async (t) => {
    // The tenant may read RGDs (cluster-wide) and, in its own namespace, the instances, their children and Events.
    await kubectl(["create", "serviceaccount", "viewer", "-n", nsA]);
    await kubectl(["create", "serviceaccount", "nobody", "-n", nsA]);
    await kubectl([
      "create",
      "clusterrole",
      `ui-rgd-reader-${letters}`,
      "--verb=get,list",
      "--resource=resourcegraphdefinitions.kro.run",
    ]);
    await kubectl([
      "create",
      "clusterrolebinding",
      `ui-rgd-reader-${letters}`,
      `--clusterrole=ui-rgd-reader-${letters}`,
      `--serviceaccount=${nsA}:viewer`,
    ]);
    await kubectl([
      "create",
      "role",
      "viewer",
      "-n",
      nsA,
      "--verb=get,list",
      `--resource=${plural}.kro.run,configmaps,services,events`,
    ]);
    await kubectl(["create", "rolebinding", "viewer", "-n", nsA, "--role=viewer", `--serviceaccount=${nsA}:viewer`]);
    const viewer = await serviceAccountKubeconfig(t, nsA, "viewer");
    const nobody = await serviceAccountKubeconfig(t, nsA, "nobody");

    const tenant = await startUi(viewer.kubeconfig, label);
    sessions.push(tenant.session);
    const page = await browser.newPage();
    await page.goto(tenant.url);
    await seeing(t, page, async () => {
      await page.locator(`[data-instance="${nsA}/web"] li`).first().waitFor({ timeout: 30_000 });
      await page.locator(`[data-instance="${nsA}/broken"] li[data-state="error"]`).waitFor({ timeout: 30_000 });
      const text = await page.locator("main").innerText();
      assert.match(text, new RegExp(`instances in namespace ${nsA} \\(listing all namespaces is not permitted\\)`));
      assert.doesNotMatch(text, /hidden-b/, "another team's instance");
      assert.doesNotMatch(text, new RegExp(nsB), "another team's namespace, not even in Events");
    });
    await page.close();

    const stranger = await startUi(nobody.kubeconfig, label);
    sessions.push(stranger.session);
    const blank = await browser.newPage();
    await blank.goto(stranger.url);
    await seeing(t, blank, async () => {
      const refused = blank.locator('[data-refused="ResourceGraphDefinitions"]');
      await refused.waitFor({ timeout: 30_000 });
      assert.match(
        await refused.innerText(),
        new RegExp(`not permitted: ResourceGraphDefinitions — .*system:serviceaccount:${nsA}:nobody.* cannot list`),
      );
      assert.match(await blank.locator('[data-refused="Events"]').innerText(), /not permitted: Events/);
      assert.equal(await blank.locator("[data-rgd], [data-instance]").count(), 0);
      const text = await blank.locator("main").innerText();
      for (const secret of [rgdName, "web", "broken", "hidden-b", kind])
        assert.doesNotMatch(text, new RegExp(secret), `${secret} is not for this user`);
    });
    await blank.close();
  });
});
