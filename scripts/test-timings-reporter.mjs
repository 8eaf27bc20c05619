// A node:test reporter for scripts/run-tests.mjs: one JSON line per finished test or suite, with
// its file, its suite path and its duration. The TAP report cannot give these: on Node 20 it names
// a passing test's file nowhere, and a test's suites only by indentation.
export default async function* timings(source) {
  /** Per file, the names of the tests and suites started at each nesting level. */
  const open = new Map();
  for await (const event of source) {
    const data = event.data;
    if (event.type === "test:start") {
      const stack = open.get(data.file) ?? [];
      stack.length = data.nesting;
      stack.push(data.name);
      open.set(data.file, stack);
    } else if (event.type === "test:pass" || event.type === "test:fail") {
      const suites = (open.get(data.file) ?? []).slice(0, data.nesting);
      yield `${JSON.stringify({
        file: data.file,
        name: [...suites, data.name].join(" › "),
        nesting: data.nesting,
        suite: data.details?.type === "suite",
        failed: event.type === "test:fail",
        durationMs: data.details?.duration_ms ?? 0,
      })}\n`;
    }
  }
}
