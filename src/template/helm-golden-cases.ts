/** Every Helm golden case (recorded in testdata/helm-golden.json; refresh only on purpose). */
import { engineCases } from "./helm-golden-engine.js";
import type { HelmCase } from "./helm-golden-support.js";

export const helmGoldenCases: readonly HelmCase[] = [...engineCases];
