// The page's refresh script, run in a VM over a minimal fake DOM with the refresh tick and each
// fetch's answer in the test's hands: the swap that keeps the view live must never throw away what
// the person is writing in the filter form — neither while they are in it, nor when an answer asked
// for before they started arrives after.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runInNewContext } from "node:vm";
import { PAGE_SCRIPT } from "./page-assets.js";

interface Field {
  tagName: string;
  value: string;
  defaultValue: string;
}

function page() {
  const field: Field = { tagName: "INPUT", value: "", defaultValue: "" };
  const view = { innerHTML: "first", querySelectorAll: () => [field] };
  const updated = { textContent: "", className: "" };
  const inForm = { closest: () => ({}) };
  const document = {
    hidden: false,
    activeElement: null as unknown,
    body: { getAttribute: (name: string) => (name === "data-refresh-ms" ? "1000" : "?fragment=1") },
    getElementById: (id: string) => (id === "view" ? view : updated),
  };
  const answers: ((html: string) => void)[] = [];
  let tick: (() => void) | undefined;
  runInNewContext(PAGE_SCRIPT, {
    document,
    Number,
    Date,
    Error,
    setInterval: (fn: () => void) => {
      tick = fn;
    },
    fetch: () =>
      new Promise((resolve) => {
        answers.push((html) => {
          resolve({ ok: true, status: 200, text: () => Promise.resolve(html) });
        });
      }),
  });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    view,
    field,
    document,
    inForm,
    answers,
    tick: () => {
      assert.ok(tick);
      tick();
    },
    answer: async (html: string) => {
      const next = answers.shift();
      assert.ok(next, "a fetch is in flight");
      next(html);
      await settle();
      await settle();
    },
  };
}

describe("the page's refresh", () => {
  it("swaps the fresh fragment in when nobody is in the form", async () => {
    const p = page();
    p.tick();
    await p.answer("second");
    assert.equal(p.view.innerHTML, "second");
  });

  it("does not ask while the person is in the form, or has changed a field of it", () => {
    const p = page();
    p.document.activeElement = p.inForm;
    p.tick();
    assert.equal(p.answers.length, 0, "in the form");
    p.document.activeElement = null;
    p.field.value = "team-a";
    p.tick();
    assert.equal(p.answers.length, 0, "a field changed, focus elsewhere");
  });

  it("drops an answer that arrives after the person started writing in the form", async () => {
    const p = page();
    p.tick();
    p.field.value = "team-a";
    await p.answer("second");
    assert.equal(p.view.innerHTML, "first", "what they typed is still on the page");
    p.field.value = "";
    p.tick();
    await p.answer("third");
    assert.equal(p.view.innerHTML, "third", "the refresh goes on once the form is as rendered");
  });
});
