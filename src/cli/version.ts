import { readFileSync } from "node:fs";

/** Read from package.json at run time so that there is one version number to bump. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
