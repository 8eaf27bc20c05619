// The HTTP side of the web view on a real loopback socket, with a snapshot reader standing in for
// the cluster (the cluster side is test/integration/cli-ui.test.ts and controller-ui.test.ts):
// read-only, Host-checked, the CSP that forbids inline script, one cluster read shared by
// concurrent requests, and nothing served past a refusing `sessionFor`.
import assert from "node:assert/strict";
import { request } from "node:http";
import { request as httpsRequest } from "node:https";
import { TLSSocket } from "node:tls";
import { createServingCertificate } from "../../controller/conversion/index.js";
import { after, before, describe, it } from "node:test";
import type { SnapshotReader } from "./cluster-snapshot.js";
import { snapshotSession } from "./snapshot-session.js";
import { allowedHosts, startUiServer, type UiServer } from "./ui-server.js";

function call(
  url: string,
  options: { method?: string; host?: string } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.host === undefined ? {} : { host: options.host } },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("kro ui server", () => {
  let server: UiServer;
  let reads = 0;
  const overview = async () => {
    reads++;
    await new Promise((r) => setTimeout(r, 50));
    return {
      server: "https://cluster.test",
      rgds: { ok: false as const, notPermitted: true, message: "resourcegraphdefinitions is forbidden" },
    };
  };
  const reader: SnapshotReader = {
    overview,
    rgdPage: async (rgdName) => ({ rgdName, overview: await overview(), events: { ok: true, value: [] } }),
    instancePage: () => Promise.reject(new Error("not in this test")),
    graph: () => Promise.resolve(undefined),
  };
  const serve = (refreshMs: number) => {
    const session = snapshotSession(reader, refreshMs);
    return startUiServer({
      address: "127.0.0.1",
      port: 0,
      refreshMs,
      sessionFor: () => Promise.resolve({ ok: true, session }),
    });
  };
  before(async () => {
    server = await serve(10_000);
  });
  after(async () => {
    await server.close();
  });

  it("serves the page with its own script and stylesheet under a CSP without inline script", async () => {
    const page = await call(server.url);
    assert.equal(page.status, 200);
    assert.match(page.body, /<script src="\.\/app\.js" defer><\/script>/);
    assert.match(
      page.body,
      /not permitted:<\/strong> ResourceGraphDefinitions — resourcegraphdefinitions is forbidden/,
    );
    assert.match(page.body, /data-fragment="\?fragment=1"/, "the script refreshes this page's own fragment");
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'; script-src 'self'/);
    assert.doesNotMatch(page.body, /<script>|style="/, "no inline script or style for the CSP to block");
    assert.match((await call(`${server.url}app.js`)).body, /fetch\(fragment/);
    assert.match((await call(`${server.url}app.css`)).body, /td\.depth-8/);
  });

  it("is read-only and answers only for its own Host", async () => {
    assert.equal((await call(server.url, { method: "POST" })).status, 405);
    assert.equal((await call(server.url, { method: "DELETE" })).status, 405);
    assert.equal(
      (await call(server.url, { host: "evil.example:80" })).status,
      421,
      "a DNS-rebinding page names its own host",
    );
    assert.equal((await call(server.url, { host: `localhost:${new URL(server.url).port}` })).status, 200);
    assert.equal((await call(`${server.url}graph.svg?rgd=none&generation=1`)).status, 404);
    assert.equal((await call(`${server.url}secrets`)).status, 404);
    assert.equal(
      (await call(`${server.url}instances/a/b`)).status,
      404,
      "an instance address names rgd, namespace and name",
    );
    assert.equal((await call(`${server.url}rgds/%E0%A4%A`)).status, 404, "a malformed escape is no page");
  });

  it("shares one cluster read between concurrent requests, and reads again after half an interval", async () => {
    const own = await serve(200);
    try {
      const start = reads;
      await Promise.all([call(`${own.url}view`), call(`${own.url}view`), call(`${own.url}view`)]);
      assert.equal(reads - start, 1, "three concurrent requests, one read");
      await new Promise((r) => setTimeout(r, 150));
      await call(`${own.url}view`);
      assert.equal(reads - start, 2, "a stale snapshot is read again");
    } finally {
      await own.close();
    }
  });

  it("serves nothing of the cluster past a refusing session, only the page's own assets", async () => {
    const start = reads;
    const refusing = await startUiServer({
      address: "127.0.0.1",
      port: 0,
      refreshMs: 1000,
      sessionFor: () =>
        Promise.resolve({ ok: false, status: 401, body: "<p>sign in</p>", headers: { "www-authenticate": "Bearer" } }),
    });
    try {
      for (const path of ["", "view", "graph.svg?rgd=a&generation=1", "secrets"]) {
        const answer = await call(`${refusing.url}${path}`);
        assert.equal(answer.status, 401, path);
        assert.equal(answer.body, "<p>sign in</p>");
        assert.equal(answer.headers["www-authenticate"], "Bearer");
      }
      assert.equal((await call(`${refusing.url}app.js`)).status, 200);
      assert.equal(reads, start, "the cluster is not read for a refused request");
    } finally {
      await refusing.close();
    }
  });

  it("serves HTTPS with the certificate it is given, and a replaced one to new connections", async () => {
    const first = await createServingCertificate(["127.0.0.1"], 1);
    const second = await createServingCertificate(["127.0.0.1"], 1);
    const session = snapshotSession(reader, 1000);
    const secure = await startUiServer({
      address: "127.0.0.1",
      port: 0,
      refreshMs: 1000,
      sessionFor: () => Promise.resolve({ ok: true, session }),
      tls: { key: first.keyPem, cert: first.certPem },
    });
    const served = (ca: string): Promise<{ status: number; fingerprint: string }> =>
      new Promise((resolve, reject) => {
        const req = httpsRequest(`${secure.url}app.css`, { ca, agent: false }, (res) => {
          const fingerprint = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().fingerprint256 : "";
          res.resume();
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, fingerprint });
          });
        });
        req.on("error", reject);
        req.end();
      });
    try {
      assert.match(secure.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
      const before = await served(first.caPem);
      assert.equal(before.status, 200);
      secure.setTls({ key: second.keyPem, cert: second.certPem });
      const after = await served(second.caPem);
      assert.equal(after.status, 200);
      assert.notEqual(after.fingerprint, before.fingerprint, "the rotated certificate is served");
      await assert.rejects(
        served(first.caPem),
        /self[- ]signed|unable to verify|certificate/i,
        "the old CA no longer vouches for it",
      );
    } finally {
      await secure.close();
    }
  });

  it("checks Host only on loopback addresses", () => {
    assert.deepEqual([...(allowedHosts("127.0.0.1", 8765) ?? [])], ["127.0.0.1:8765", "localhost:8765"]);
    assert.deepEqual([...(allowedHosts("::1", 1) ?? [])], ["[::1]:1", "localhost:1"]);
    assert.equal(allowedHosts("0.0.0.0", 8765), undefined);
  });
});
