import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { blockLines, changedFacts, clock, LiveBoard, type BoardRow } from "./live-board.js";

/** Enough of a WriteStream for the board: records writes. */
function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text(): string } {
  let written = "";
  return {
    isTTY,
    columns: 40,
    write(chunk: string) {
      written += chunk;
      return true;
    },
    text: () => written,
  } as unknown as NodeJS.WriteStream & { text(): string };
}

const rows = (deploy: string): BoardRow[] => [
  {
    label: "webapp/demo",
    summary: "IN_PROGRESS",
    resources: [
      { id: "deploy", text: deploy },
      { id: "svc", text: "waiting on deploy" },
    ],
  },
];

describe("live board", () => {
  it("formats elapsed time as [mm:ss]", () => {
    assert.equal(clock(0), "[00:00]");
    assert.equal(clock(61_900), "[01:01]");
    assert.equal(clock(-5), "[00:00]");
  });

  it("lays out one block per instance with aligned resource ids", () => {
    assert.deepEqual(blockLines(rows("ready")), [
      "webapp/demo: IN_PROGRESS",
      "  deploy  ready",
      "  svc     waiting on deploy",
    ]);
  });

  it("reports only facts that changed", () => {
    const before = new Map([
      ["webapp/demo", "IN_PROGRESS"],
      ["webapp/demo deploy", "applied"],
      ["webapp/demo svc", "waiting on deploy"],
    ]);
    assert.deepEqual([...changedFacts(before, rows("ready"))], [["webapp/demo deploy", "ready"]]);
  });

  it("prints timestamped lines when not on a terminal, each change once", () => {
    const stream = fakeStream(false);
    const board = new LiveBoard({ stream, startedAt: Date.now() });
    board.show(rows("applied, waiting for readiness"));
    board.show(rows("applied, waiting for readiness"));
    board.show(rows("ready"));
    const lines = stream.text().trimEnd().split("\n");
    assert.deepEqual(
      lines.map((l) => l.replace(/^\[\d\d:\d\d\] /, "")),
      [
        "webapp/demo: IN_PROGRESS",
        "webapp/demo deploy: applied, waiting for readiness",
        "webapp/demo svc: waiting on deploy",
        "webapp/demo deploy: ready",
      ],
    );
    assert.ok(lines.every((l) => /^\[\d\d:\d\d\] /.test(l)));
  });

  it("redraws the block in place on a terminal, cut to its width, and stops redrawing once frozen", () => {
    const stream = fakeStream(true);
    const board = new LiveBoard({ stream });
    board.show(rows("applied, waiting for readiness (deploy.status.availableReplicas)"));
    assert.equal(
      stream.text(),
      "webapp/demo: IN_PROGRESS\n  deploy  applied, waiting for readine…\n  svc     waiting on deploy\n",
    );
    assert.ok(
      stream
        .text()
        .split("\n")
        .every((l) => l.length < 40),
      "no line wraps",
    );
    board.show(rows("ready"));
    assert.ok(
      stream.text().includes("\x1b[3A\x1b[0Jwebapp/demo: IN_PROGRESS\n  deploy  ready\n"),
      JSON.stringify(stream.text()),
    );
    board.freeze();
    board.note("kro-ts: all examples Ready");
    board.show([{ ...(rows("ready")[0] as BoardRow), summary: "ACTIVE" }]);
    assert.ok(
      stream.text().endsWith("kro-ts: all examples Ready\n[00:00] webapp/demo: ACTIVE\n"),
      JSON.stringify(stream.text()),
    );
  });
});
