// `kro ui` in a real browser (headless Chromium from the Debian package, driven by
// playwright-core) against the real control plane and controller, at 1,000 instances: the
// overview's counts by state, filters and pages, an instance's page (children, conditions, Events,
// its picture) opened by a link and by a deep link, an instance turning Ready on its page, an
// apply error said once, and people with fewer rights (real ServiceAccount tokens) seeing only what
// RBAC lets them read. The passing pages are saved as docs/images/kro-ui.png and
// kro-ui-instance.png (the README's screenshots); a failing one next to the test logs.
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
const bulkKind = `UiBulk${letters.charAt(0).toUpperCase()}${letters.slice(1)}`;
const bulkName = `ui-bulk-${letters}`;
const BULK = 1000;

// One ConfigMap per instance, Ready once spec.flag is "on": every tenth bulk instance stays in progress.
const bulkSpec = `
  schema:
    apiVersion: v1alpha1
    kind: ${bulkKind}
    spec:
      flag: string | default="on"
  resources:
    - id: cm
      readyWhen:
        - \${cm.data.flag == "on"}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-cm" }
        data: { flag: "\${schema.spec.flag}" }
`;

const bulkItem = (ns: string, i: number): string =>
  `apiVersion: kro.run/v1alpha1\nkind: ${bulkKind}\nmetadata:\n  name: item-${String(i).padStart(4, "0")}\n  namespace: ${ns}\nspec: { flag: "${i % 10 === 0 ? "off" : "on"}" }\n`;

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
  const session = startCli(["ui", "--port", "0", "--interval", "1s", "--selector", label, "--kubeconfig", kubeconfig]);
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

/** The whole page, for the README: taken from a passing test only. */
async function keep(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ROOT, "docs/images", name), fullPage: true });
}

const imageLoaded = (page: Page): Promise<number> =>
  page
    .locator("img.graph")
    .evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0));

describe("kro ui in a browser", { timeout: 1_200_000 }, () => {
  let tc: TestController;
  let browser: BrowserContext;
  let profile: string;
  let label: string;
  let nsA: string;
  let nsB: string;
  let nsBulk: string;
  let adminUrl: string;
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
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, rgdName)}${rgdSpec}---\n${rgdHeader(tc, bulkName)}${bulkSpec}`,
    );
    await waitRgdActive(rgdName);
    await waitRgdActive(bulkName);
    nsA = `ui-team-a-${letters}`;
    nsB = `ui-team-b-${letters}`;
    nsBulk = `ui-bulk-${letters}`;
    for (const ns of [nsA, nsB, nsBulk]) await kubectl(["create", "namespace", ns]);
    await kubectl(
      ["apply", "-f", "-"],
      [
        instance(nsA, "web", '{ flag: "off" }'),
        instance(nsA, "broken", "{ port: 70000 }"),
        instance(nsB, "hidden-b", '{ flag: "on" }'),
      ].join("---\n"),
    );
    // A thousand instances in a few requests' worth of kubectl: one multi-document apply.
    await kubectl(
      ["apply", "--server-side", "-f", "-"],
      Array.from({ length: BULK }, (_, i) => bulkItem(nsBulk, i)).join("---\n"),
    );
  });
  after(async () => {
    for (const s of sessions) s.kill();
    await browser.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
    await kubectl(["delete", "rgd", rgdName, bulkName, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "namespace", nsA, nsB, nsBulk, "--ignore-not-found", "--wait=false"]).catch(() => "");
    await kubectl(["delete", "clusterrole,clusterrolebinding", `ui-rgd-reader-${letters}`, "--ignore-not-found"]).catch(
      () => "",
    );
    await tc.stop();
  });

  it("counts 1,000 instances by state on the overview, filters them and pages through them", async (t) => {
    const { session, url } = await startUi(testCluster().kubeconfig, label);
    sessions.push(session);
    adminUrl = url;
    const page = await browser.newPage();
    await page.goto(url);
    await seeing(t, page, async () => {
      const bulk = page.locator(`[data-rgd="${bulkName}"]`);
      // The page refreshes itself while the controller works through the thousand.
      await bulk.locator('a[data-count="ready"]', { hasText: /^900$/ }).waitFor({ timeout: 900_000 });
      await bulk.locator('a[data-count="in-progress"]', { hasText: /^100$/ }).waitFor({ timeout: 60_000 });
      assert.equal(await bulk.getAttribute("data-total"), String(BULK));
      assert.equal(await bulk.getAttribute("data-state"), "ready");
      const small = page.locator(`[data-rgd="${rgdName}"]`);
      await small.locator('a[data-count="error"]', { hasText: /^1$/ }).waitFor({ timeout: 60_000 });
      assert.equal(await small.getAttribute("data-total"), "3");
      assert.equal(await page.locator("[data-rgd]").count(), 2, "only the RGDs the selector names");
      assert.match(await page.locator(".pager").innerText(), /showing 1–50 of 1,003/);
      assert.equal(await page.locator("tr.instance").count(), 50, "one page of 50");
      assert.equal(
        await page.locator("tr.instance").first().getAttribute("data-instance"),
        `${nsA}/broken`,
        "problems first",
      );
    });
    await keep(page, "kro-ui.png");

    await seeing(t, page, async () => {
      // The filter form is a plain GET form: its query is the address.
      await page.locator('input[name="namespace"]').fill(nsBulk);
      await page.locator('select[name="state"]').selectOption("in-progress");
      await Promise.all([page.waitForURL(/state=in-progress/), page.locator("form.filter button").click()]);
      assert.match(await page.locator(".pager").innerText(), /showing 1–50 of 100 \(1,000 listed\)/);
      assert.equal(await page.locator('tr.instance:not([data-state="in-progress"])').count(), 0);
      await Promise.all([page.waitForURL(/page=2/), page.locator('a[rel="next"]').click()]);
      assert.match(await page.locator(".pager").innerText(), /showing 51–100 of 100/);
      assert.equal(await page.locator('a[rel="next"]').count(), 0, "the last page");

      await page.goto(`${url}?q=ITEM-0990`);
      assert.equal(await page.locator("tr.instance").count(), 1);
      assert.equal(await page.locator("tr.instance").getAttribute("data-instance"), `${nsBulk}/item-0990`);
      await Promise.all([
        page.waitForURL(/\/instances\//),
        page.locator(`[data-instance="${nsBulk}/item-0990"] a`).click(),
      ]);
      const item = page.locator(`[data-instance-page="${nsBulk}/item-0990"]`);
      assert.equal(await item.getAttribute("data-state"), "in-progress");
      const cm = page.locator('tr.node[data-node="cm"]');
      assert.match(
        await cm.innerText(),
        new RegExp(
          `cm\\s+ConfigMap\\s+item-0990-cm\\s+${nsBulk}\\s+hub\\s+waiting for readiness\\s+readyWhen is not true yet: cm\\.data\\.flag == "on"`,
        ),
      );
      assert.match(await page.locator("table.conditions").innerText(), /Ready\s+False/);
      await page.locator("#events table.events tr.event-warning").first().waitFor({ timeout: 60_000 });
      assert.ok((await imageLoaded(page)) > 0, "the instance's picture loaded");
    });
    await page.close();
  });

  it("opens an instance by its deep link: an apply error said once, and a change shown live", async (t) => {
    const page = await browser.newPage();
    await page.goto(`${adminUrl}instances/${rgdName}/${nsA}/broken`);
    await seeing(t, page, async () => {
      const broken = page.locator(`[data-instance-page="${nsA}/broken"]`);
      await page.locator(`[data-instance-page="${nsA}/broken"][data-state="error"]`).waitFor({ timeout: 60_000 });
      const portal = broken.locator('tr.node[data-node="portal"]');
      assert.equal(await portal.getAttribute("data-state"), "error");
      assert.match(await portal.innerText(), /Service\s+.*error\s+apply Service .*must be between 1 and 65535/);
      assert.doesNotMatch(
        await page.locator("table.conditions").innerText(),
        /must be between 1 and 65535/,
        "the conditions point at the children's row instead of repeating it",
      );
      assert.equal((await page.locator("main").innerText()).split("apply Service").length - 1, 1, "said once");
      assert.ok((await imageLoaded(page)) > 0, "the picture coloured by state loaded");
      assert.match((await page.locator("img.graph").getAttribute("src")) ?? "", /colors=.*portal%3Aerror/);
    });
    await keep(page, "kro-ui-instance.png");

    await page.goto(`${adminUrl}instances/${rgdName}/${nsA}/web`);
    await seeing(t, page, async () => {
      await page.locator(`[data-instance-page="${nsA}/web"][data-state="in-progress"]`).waitFor({ timeout: 60_000 });
      await kubectl(["patch", plural, "web", "-n", nsA, "--type=merge", "-p", '{"spec":{"flag":"on"}}']);
      // No reload: the page's own refresh shows the change.
      await page.locator(`[data-instance-page="${nsA}/web"][data-state="ready"]`).waitFor({ timeout: 60_000 });
      assert.equal(await page.locator('tr.node[data-node="config"]').getAttribute("data-state"), "ready");
    });

    await page.goto(`${adminUrl}rgds/${rgdName}`);
    await seeing(t, page, async () => {
      await page.locator(`[data-rgd-page="${rgdName}"]`).waitFor({ timeout: 30_000 });
      assert.equal(await page.locator("tr.instance").count(), 3, "its own instances only");
      assert.ok((await imageLoaded(page)) > 0, "the RGD's picture loaded");
      assert.match(await page.locator("table.conditions").innerText(), /Ready\s+True/);
    });
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
      const own = page.locator(`[data-rgd="${rgdName}"]`);
      await own.waitFor({ timeout: 30_000 });
      assert.equal(await own.getAttribute("data-total"), "2");
      assert.match(await own.innerText(), new RegExp(`namespace ${nsA} \\(listing all namespaces is not permitted\\)`));
      assert.match(
        await page.locator(`[data-rgd="${bulkName}"]`).innerText(),
        /not permitted: instances of/,
        "a kind the tenant may not list is said so, in its row",
      );
      const text = await page.locator("main").innerText();
      assert.doesNotMatch(text, /hidden-b/, "another team's instance");
      assert.doesNotMatch(text, new RegExp(nsB), "another team's namespace");

      await page.goto(`${tenant.url}instances/${rgdName}/${nsA}/broken`);
      await page.locator('tr.node[data-node="portal"][data-state="error"]').waitFor({ timeout: 30_000 });
      assert.doesNotMatch(await page.locator("main").innerText(), new RegExp(nsB), "not even in Events");
      await page.goto(`${tenant.url}instances/${rgdName}/${nsB}/hidden-b`);
      assert.match(await page.locator(".refused").innerText(), /not permitted: .*hidden-b — .*forbidden/);
      assert.equal(await page.locator("table").count(), 0, "nothing of another team's instance");
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
      assert.equal(await blank.locator("[data-rgd], [data-instance]").count(), 0);
      const text = await blank.locator("main").innerText();
      for (const secret of [rgdName, bulkName, "web", "broken", "hidden-b", kind])
        assert.doesNotMatch(text, new RegExp(secret), `${secret} is not for this user`);
    });
    await blank.close();
  });
});
