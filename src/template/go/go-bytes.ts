/** Go's []byte as a template value (Helm's `.Files` holds file contents as []byte). */
import { GoObject } from "./go-object.js";
import { GoInt } from "./values.js";

/** A Go []byte: prints as numbers, converts back to a string in strval/toString, marshals as base64. */
export function goBytes(data: Uint8Array): GoObject {
  return new GoObject({
    typeName: "[]uint8",
    kind: "slice",
    value: [...data].map((b) => new GoInt(BigInt(b), "uint8")),
    bytes: data,
    json: () => Buffer.from(data).toString("base64"),
  });
}
