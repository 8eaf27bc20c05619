// The server in-process over in-memory pipes, with a hand-driven clock: the debounce of
// diagnostics is checked in fake time, never against the wall clock.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { createKroCelEnvironment } from "../../expr/index.js";
import { loadBuiltinSchemas } from "../inputs/index.js";
import { LspClient } from "../../../test/unit-support/lsp/lsp-client.js";
import { startLanguageServer } from "./server.js";
import type { Timers } from "./timers.js";

const VALID = readFileSync(new URL("../../../../test/data/lsp/webapp-rgd.yaml", import.meta.url), "utf8");
const BROKEN = VALID.replace("${schema.spec.replicas}", "${schema.spec.replica}");
const URI = "file:///work/webapp-rgd.yaml";
const DEBOUNCE_MS = 200;

/** Timers that fire only when the test advances time. */
class ManualTimers implements Timers {
  now = 0;
  readonly #timers = new Map<number, { due: number; run: () => void }>();
  #next = 0;
  set(run: () => void, ms: number): unknown {
    this.#timers.set(++this.#next, { due: this.now + ms, run });
    return this.#next;
  }
  clear(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  get pending(): number {
    return this.#timers.size;
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [handle, timer] of [...this.#timers].sort((a, b) => a[1].due - b[1].due)) {
      if (timer.due > this.now) continue;
      this.#timers.delete(handle);
      timer.run();
    }
  }
}

/** A server in this process over in-memory pipes, on these timers, and the client talking to it. */
async function serverOverPipes(timers: Timers): Promise<LspClient> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  startLanguageServer(createConnection(ProposedFeatures.all, toServer, toClient), {
    compile: { resolver: await loadBuiltinSchemas("1.33"), env: createKroCelEnvironment({ enableRuntime: true }) },
    timers,
    debounceMs: DEBOUNCE_MS,
  });
  return new LspClient(toClient, toServer);
}

describe("the language server's diagnostics in fake time", () => {
  const timers = new ManualTimers();
  let client: LspClient;
  /** A request answered after every earlier message: the server has handled them all. */
  const roundTrip = (): Promise<unknown> =>
    client.request("textDocument/definition", { textDocument: { uri: URI }, position: { line: 0, character: 0 } });

  before(async () => {
    client = await serverOverPipes(timers);
    await client.initialize();
  });
  after(() => {
    client.connection.dispose();
  });

  it("publishes on open without waiting", async () => {
    await client.open(URI, BROKEN);
    const published = await client.nextDiagnostics(URI);
    assert.equal(published.version, 1);
    assert.deepEqual(
      published.diagnostics.map((d) => d.code),
      ["expr.type-error"],
    );
    assert.equal(timers.pending, 0);
  });

  it("compiles a burst of changes once, with the last text, after the quiet time", async () => {
    await client.change(URI, BROKEN.replace("${schema.spec.image}", "${schema.spec.imag}"), 2);
    await client.change(URI, VALID.replace("replicas: ${", "replicas:  ${"), 3);
    await client.change(URI, VALID, 4);
    await roundTrip();
    assert.equal(timers.pending, 1, "one timer for the document, restarted by each change");
    timers.advance(DEBOUNCE_MS - 1);
    await roundTrip();
    assert.deepEqual(client.pending(), [], "nothing before the quiet time has passed");
    timers.advance(1);
    const published = await client.nextDiagnostics(URI);
    assert.deepEqual(published, { uri: URI, version: 4, diagnostics: [] });
    await roundTrip();
    assert.deepEqual(client.pending(), [], "one publish for the whole burst");
  });

  it("on close, drops the pending compile and clears the document's diagnostics", async () => {
    await client.change(URI, BROKEN, 5);
    await client.notify("textDocument/didClose", { textDocument: { uri: URI } });
    const published = await client.nextDiagnostics(URI);
    assert.deepEqual(published.diagnostics, []);
    assert.equal(timers.pending, 0);
  });
});

describe("kinds defined by other open documents", () => {
  const timers = new ManualTimers();
  let client: LspClient;
  const CRD_URI = "file:///work/gadget-crd.yaml";
  const RGD_URI = "file:///work/gadget-rgd.yaml";
  const crd = (sizeType: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: ${sizeType}}
`;
  const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: gadgetapp
spec:
  schema:
    apiVersion: v1alpha1
    kind: GadgetApp
    spec:
      name: string
  resources:
    - id: gadget
      template:
        apiVersion: example.com/v1
        kind: Gadget
        metadata:
          name: \${schema.spec.name}
        spec:
          size: \${schema.spec.name}
`;
  const codes = (published: { diagnostics: { code?: unknown }[] }) => published.diagnostics.map((d) => d.code);

  before(async () => {
    client = await serverOverPipes(timers);
    await client.initialize();
  });
  after(() => {
    client.connection.dispose();
  });

  it("checks an RGD against a CRD open beside it, again when the CRD changes, and without it once closed", async () => {
    await client.open(RGD_URI, RGD);
    assert.deepEqual(codes(await client.nextDiagnostics(RGD_URI)), ["rgd.unknown-kind"], "offline: an unknown kind");
    await client.open(CRD_URI, crd("integer"));
    assert.deepEqual(codes(await client.nextDiagnostics(CRD_URI)), []);
    assert.deepEqual(codes(await client.nextDiagnostics(RGD_URI)), ["expr.type-mismatch"], "typed by the open CRD");
    await client.change(CRD_URI, crd("string"), 2);
    // A request answered after the change: the server has it, and its timer is set.
    await client.request("textDocument/definition", {
      textDocument: { uri: CRD_URI },
      position: { line: 0, character: 0 },
    });
    timers.advance(DEBOUNCE_MS);
    await client.nextDiagnostics(CRD_URI);
    assert.deepEqual(codes(await client.nextDiagnostics(RGD_URI)), [], "size is a string now");
    await client.notify("textDocument/didClose", { textDocument: { uri: CRD_URI } });
    await client.nextDiagnostics(CRD_URI);
    assert.deepEqual(codes(await client.nextDiagnostics(RGD_URI)), ["rgd.unknown-kind"]);
  });
});
