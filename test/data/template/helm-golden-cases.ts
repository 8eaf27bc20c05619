/** Every Helm golden case (recorded in test/data/template/helm-golden.json; refresh only on purpose). */
import { chartGoldenCases } from "./helm-golden-charts.js";
import { dateCases } from "./helm-golden-dates.js";
import { conversionCases } from "./helm-golden-conversions.js";
import { engineCases } from "./helm-golden-engine.js";
import { certCases } from "./helm-golden-certs.js";
import { secretCases } from "./helm-golden-secrets.js";
import { sprigCases } from "./helm-golden-sprig.js";
import { urlCases } from "./helm-golden-urls.js";
import type { HelmCase } from "./helm-golden-support.js";

export const helmGoldenCases: readonly HelmCase[] = [...engineCases, ...sprigCases, ...conversionCases, ...dateCases, ...chartGoldenCases, ...secretCases, ...certCases, ...urlCases];
