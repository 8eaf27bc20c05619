import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_KUBE_MINOR,
  KUBE_RELEASES,
  UnsupportedKubeVersionError,
  resolveKubeRelease,
  stagingVersion,
} from "./versions.js";

describe("resolveKubeRelease", () => {
  const cases: [input: string | undefined, expected: string][] = [
    [undefined, "v1.33.13"],
    ["1.33", "v1.33.13"],
    ["v1.32", "v1.32.2"],
    ["1.31", "v1.31.0"],
    [" 1.31 ", "v1.31.0"],
    ["1.33.13", "v1.33.13"],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(resolveKubeRelease(input).kubernetes, expected);
    });
  }

  for (const bad of ["1.30", "1.34", "1.33.1", "latest", ""]) {
    it(`rejects ${JSON.stringify(bad)} and lists what is supported`, () => {
      assert.throws(
        () => resolveKubeRelease(bad),
        (error: unknown) => {
          assert.ok(error instanceof UnsupportedKubeVersionError);
          assert.match(error.message, /supported versions are 1\.31, 1\.32, 1\.33$/);
          return true;
        },
      );
    });
  }

  it("defaults to the newest supported release", () => {
    const newest = [...KUBE_RELEASES]
      .sort((a, b) => Number(a.minor.split(".")[1]) - Number(b.minor.split(".")[1]))
      .at(-1);
    assert.equal(DEFAULT_KUBE_MINOR, newest?.minor);
  });

  it("maps a release to its staging module version", () => {
    assert.equal(stagingVersion(resolveKubeRelease("1.32")), "v0.32.2");
  });
});
