/**
 * Answers one apiextensions.k8s.io/v1 ConversionReview: every object converted to the desired
 * version through its RGD's declared conversion. A failure answers `result.status: Failure` with
 * a message naming the object and the field, which the API server returns to the client as is.
 */
import { convertObject, isConversionError, type ApiOfVersions, type VersionedObject } from "../../runtime/index.js";

export interface ConversionReview {
  readonly apiVersion: "apiextensions.k8s.io/v1";
  readonly kind: "ConversionReview";
  readonly response: {
    readonly uid: string;
    readonly convertedObjects?: readonly VersionedObject[];
    readonly result: { readonly status: "Success" } | { readonly status: "Failure"; readonly message: string };
  };
}

/** The API of a group/kind, if this controller knows it. */
export type ApiLookup = (group: string, kind: string) => ApiOfVersions | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const groupOf = (apiVersion: string): string =>
  apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.lastIndexOf("/")) : "";

function answer(
  uid: string,
  result: ConversionReview["response"]["result"],
  convertedObjects?: readonly VersionedObject[],
): ConversionReview {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    response: { uid, ...(convertedObjects === undefined ? {} : { convertedObjects }), result },
  };
}

/** `undefined` when the body is not a ConversionReview request at all (the server answers 400). */
export function reviewConversion(body: unknown, lookup: ApiLookup): ConversionReview | undefined {
  if (!isObject(body) || body.kind !== "ConversionReview" || !isObject(body.request)) return undefined;
  const { uid, desiredAPIVersion, objects } = body.request;
  if (typeof uid !== "string" || typeof desiredAPIVersion !== "string" || !Array.isArray(objects)) return undefined;
  const fail = (message: string) => answer(uid, { status: "Failure", message });
  const group = groupOf(desiredAPIVersion);
  const version = desiredAPIVersion.slice(desiredAPIVersion.lastIndexOf("/") + 1);
  const converted: VersionedObject[] = [];
  for (const object of objects as unknown[]) {
    if (!isObject(object) || typeof object.kind !== "string")
      return fail("conversion request holds an object without a kind");
    const api = lookup(group, object.kind);
    if (api === undefined)
      return fail(
        `kro-ts does not serve ${object.kind}.${group} (yet): its ResourceGraphDefinition is not compiled on this replica`,
      );
    try {
      converted.push(convertObject(api, object, version));
    } catch (e) {
      const metadata = isObject(object.metadata) ? object.metadata : {};
      const name = [metadata.namespace, metadata.name].filter((s) => typeof s === "string").join("/");
      if (isConversionError(e)) return fail(`${name === "" ? "" : `${object.kind} ${name}: `}${e.message}`);
      throw e;
    }
  }
  return answer(uid, { status: "Success" }, converted);
}
