// `kro controller --ui-*` flags: off unless bound, TLS files go together, and a rotated
// certificate on disk is served without a restart (the TLS reload a cert-manager Secret needs).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { TLSSocket } from "node:tls";
import { ServedGraphs } from "../../controller/context/index.js";
import { createServingCertificate } from "../../controller/conversion/index.js";
import { createKubeClient } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { startUiFromFlags, validateUiFlags } from "./controller-ui.js";

const fingerprintAt = (url: string, ca: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}app.css`, { ca, agent: false }, (res) => {
      const fingerprint = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().fingerprint256 : "";
      res.resume();
      res.on("end", () => {
        resolve(fingerprint);
      });
    });
    req.on("error", reject);
    req.end();
  });

describe("the controller's --ui-* flags", () => {
  it("refuse a certificate without its key, or TLS without an address", () => {
    assert.throws(() => {
      validateUiFlags({ uiBindAddress: ":8082", uiTlsCertFile: "/c" });
    }, /--ui-tls-cert-file and --ui-tls-key-file go together/);
    assert.throws(() => {
      validateUiFlags({ uiBindAddress: "0", uiTlsCertFile: "/c", uiTlsKeyFile: "/k" });
    }, /needs --ui-bind-address/);
    validateUiFlags({ uiBindAddress: "0" });
  });

  it("start nothing by default, and serve a certificate renewed on disk without a restart", async () => {
    const client = await createKubeClient({
      connection: { source: "test", server: "https://127.0.0.1:1", namespace: "default", insecureSkipTlsVerify: true },
    });
    const options = {
      client,
      served: new ServedGraphs(),
      logger: createLogger({ level: "silent" }),
      userAgent: "test",
      reloadMs: 50,
    };
    assert.equal(await startUiFromFlags({ uiBindAddress: "0" }, options), undefined);
    const dir = await mkdtemp(path.join(tmpdir(), "kro-ui-tls-"));
    const [first, second] = await Promise.all([
      createServingCertificate(["127.0.0.1"], 1),
      createServingCertificate(["127.0.0.1"], 1),
    ]);
    const certFile = path.join(dir, "tls.crt");
    const keyFile = path.join(dir, "tls.key");
    await writeFile(certFile, first.certPem);
    await writeFile(keyFile, first.keyPem);
    const ui = await startUiFromFlags(
      { uiBindAddress: "127.0.0.1:0", uiTlsCertFile: certFile, uiTlsKeyFile: keyFile },
      options,
    );
    try {
      assert.ok(ui !== undefined);
      assert.match(ui.url, /^https:/);
      const before = await fingerprintAt(ui.url, first.caPem);
      await writeFile(keyFile, second.keyPem);
      await writeFile(certFile, second.certPem);
      let after = before;
      for (let i = 0; i < 100 && after === before; i++) {
        await new Promise((r) => setTimeout(r, 50));
        after = await fingerprintAt(ui.url, second.caPem).catch(() => before);
      }
      assert.notEqual(after, before, "the renewed certificate is served");
    } finally {
      await ui?.close();
      client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
