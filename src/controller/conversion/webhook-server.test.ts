import assert from "node:assert/strict";
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from "node:http2";
import { request as httpsRequest } from "node:https";
import { describe, it } from "node:test";
import { createLogger } from "../../observability/index.js";
import { reviewConversion } from "./conversion-review.js";
import { createServingCertificate } from "./serving-certificate.js";
import { nestingDepth, startWebhookServer } from "./webhook-server.js";

const cert = await createServingCertificate(["127.0.0.1"]);
const logger = createLogger({ level: "silent", name: "webhook-server-test", format: "text" });
const REVIEW = JSON.stringify({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "ConversionReview",
  request: { uid: "u", desiredAPIVersion: "kro.run/v1alpha1", objects: [] },
});
const start = () =>
  startWebhookServer({
    host: "127.0.0.1",
    port: 0,
    cert,
    convert: (body) => reviewConversion(body, () => undefined),
    logger,
  });

/** An HTTP/2 POST whose body is held back until `finish` is called: a request in flight. */
async function connected(port: number): Promise<ClientHttp2Session> {
  const session = connect(`https://127.0.0.1:${port}`, { ca: cert.caPem });
  session.on("error", () => undefined);
  await new Promise((resolve) => session.once("connect", resolve));
  return session;
}

function held(session: ClientHttp2Session): {
  stream: ClientHttp2Stream;
  finish: () => void;
  answer: Promise<{ status: number; body: string }>;
} {
  const stream = session.request({ ":method": "POST", ":path": "/convert", "content-type": "application/json" });
  stream.write(REVIEW.slice(0, 10));
  const answer = answerOf(stream);
  return {
    stream,
    finish: () => {
      stream.end(REVIEW.slice(10));
    },
    answer,
  };
}

describe("the webhook server defends itself", () => {
  it("refuses an object nested deeper than it can convert with 400, not a stack overflow", async (t) => {
    const server = await start();
    t.after(() => server.close(0));
    const session = await connected(server.port);
    t.after(() => {
      session.close();
    });
    const deep = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"x/v1","objects":[${"[".repeat(100_000)}${"]".repeat(100_000)}]}}`;
    const answer = await post(session, deep);
    assert.equal(answer.status, 400);
    assert.match(answer.body, /nested deeper than 1000 levels/);
  });

  it("bounds the bytes all requests in flight hold together: the one that would exceed it gets 429", async (t) => {
    const server = await startWebhookServer({
      host: "127.0.0.1",
      port: 0,
      cert,
      convert: (body) => reviewConversion(body, () => undefined),
      logger,
      maxInflightBytes: 64 * 1024,
    });
    t.after(() => server.close(0));
    const session = await connected(server.port);
    t.after(() => {
      session.close();
    });
    // A first body held open at 48 KiB; a second of 48 KiB would pass the 64 KiB budget.
    const first = held(session);
    first.stream.write(" ".repeat(48 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await post(session, `${" ".repeat(48 * 1024)}${REVIEW}`);
    assert.equal(second.status, 429);
    first.finish();
    assert.equal((await first.answer).status, 200, "the first is still answered");
    // Its bytes are given back: a later request of the same size passes.
    assert.equal((await post(session, `${" ".repeat(48 * 1024)}${REVIEW}`)).status, 200);
  });

  it("measures nesting outside strings only", () => {
    assert.equal(nestingDepth('{"a":[1,{"b":"[[[{"}]}'), 3);
    assert.equal(nestingDepth('"\\"'), 0);
    assert.equal(nestingDepth('{"a":"\\"}'), 1);
  });
});

async function post(session: ClientHttp2Session, body: string): Promise<{ status: number; body: string }> {
  const stream = session.request({ ":method": "POST", ":path": "/convert", "content-type": "application/json" });
  const answer = answerOf(stream);
  stream.end(body);
  return answer;
}

/** The status and body the server answers on `stream`. */
function answerOf(stream: ClientHttp2Stream): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let body = "";
    stream.on("response", (headers) => {
      status = Number(headers[":status"]);
    });
    stream.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    stream.on("end", () => {
      resolve({ status, body });
    });
    stream.on("error", reject);
  });
}

describe("the webhook server's stop", () => {
  it("speaks HTTP/2, answers a request it took while stopping, refuses new connections, and sends GOAWAY", async () => {
    const server = await start();
    const session = await connected(server.port);
    const goaway = new Promise<number>((resolve) => {
      session.on("goaway", (code: number) => {
        resolve(code);
      });
    });
    const inFlight = held(session);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = server.close(5_000);
    assert.equal(await goaway, constants.NGHTTP2_NO_ERROR, "a graceful GOAWAY");
    // A new connection goes elsewhere: this replica no longer accepts.
    const refused = await new Promise<string>((resolve) => {
      const other = connect(`https://127.0.0.1:${server.port}`, { ca: cert.caPem });
      other.on("error", (e: NodeJS.ErrnoException) => {
        resolve(e.code ?? e.message);
      });
      other.on("connect", () => {
        other.close();
        resolve("connected");
      });
    });
    assert.equal(refused, "ECONNREFUSED");
    inFlight.finish();
    const answer = await inFlight.answer;
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as { response: { uid: string } }).response.uid, "u");
    await closed;
    session.destroy();
  });

  it("answers an HTTP/1.1 request it took while stopping, with Connection: close", async () => {
    const server = await start();
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/convert",
          ca: cert.caPem,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          });
        },
      );
      req.on("error", reject);
      req.write(REVIEW.slice(0, 10));
      setTimeout(() => {
        void server.close(5_000);
        setTimeout(() => {
          req.end(REVIEW.slice(10));
        }, 50);
      }, 50);
    });
    assert.deepEqual(await answer, { status: 200, connection: "close" });
  });

  // The held request never finishes on its own: only the drain time running out ends close().
  it("cuts what is still open when the drain time is up", { timeout: 20_000 }, async () => {
    const server = await start();
    const session = await connected(server.port);
    const inFlight = held(session);
    const failed = inFlight.answer.then(
      (a) => (a.status === 200 ? "answered" : "cut"),
      () => "cut",
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close(200);
    assert.equal(await failed, "cut");
    session.destroy();
  });
});
