// Writes schemas/resourcegraphdefinition.schema.json from the RGD CRD (src/api/rgd-json-schema.ts).
// test/tooling/rgd-json-schema.test.ts fails while the committed file differs from what this writes.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { rgdJsonSchema } = await import(path.join(root, "dist/src/api/index.js"));
const file = path.join(root, "schemas/resourcegraphdefinition.schema.json");
writeFileSync(file, `${JSON.stringify(rgdJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)}`);
