// The conversion webhook's lifetime: once closed, nothing starts a server nobody would close.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { createLogger } from "../../observability/index.js";
import { ConversionWebhook } from "./conversion-webhook.js";

const logger = createLogger({ level: "silent", name: "conversion-webhook-test", format: "text" });

describe("ConversionWebhook", () => {
  it("refuses to start once closed (a leadership won while the controller stops must not keep it alive)", async () => {
    const webhook = new ConversionWebhook({ logger });
    await webhook.close();
    await assert.rejects(webhook.start(), /the conversion webhook is closed/);
    await assert.rejects(webhook.clientConfig("/rgd-author"), /the conversion webhook is closed/);
  });

  it("closes a server whose start was under way when it was closed", async () => {
    const webhook = new ConversionWebhook({ logger });
    const starting = webhook.start();
    await webhook.close();
    const { server } = await starting;
    const connected = await new Promise<boolean>((resolve) => {
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => {
        resolve(false);
      });
    });
    assert.equal(connected, false, "nothing listens any more");
  });
});
