/**
 * The writer-record webhooks: answer an admission.k8s.io/v1 AdmissionReview by recording the
 * writer on the object with a JSONPatch — on an instance who requested it (kro.run/requested-by,
 * -groups: the write gate asks their rights wherever instance data chooses a scope), on an RGD who
 * authored it (kro.run/authored-by, -groups: every write its instances cause is bounded by their
 * rights). An admission policy admits a record only when it names the writer, so a record set
 * here or by hand is the truth either way; this only spares people writing it. The controller's
 * own writes (finalizers, nested instances, which carry the outer record) are left as they are. Pure.
 */
import { ANNOTATIONS } from "../../api/index.js";

export const REQUESTER_PATH = "/requester";
export const RGD_AUTHOR_PATH = "/rgd-author";

/**
 * One webhook entry of a MutatingWebhookConfiguration that sends writes to a writer-record
 * endpoint: never blocking (`Ignore`: a controller that is down blocks no write), never for the
 * controller's own writes (when its user is known). Pure.
 */
export function writerRecordWebhook(input: {
  readonly name: string;
  readonly clientConfig: unknown;
  readonly rules: readonly Record<string, unknown>[];
  readonly controllerUser: string | undefined;
  readonly objectSelector?: unknown;
}): Record<string, unknown> {
  return {
    name: input.name,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    failurePolicy: "Ignore",
    timeoutSeconds: 3,
    matchPolicy: "Equivalent",
    reinvocationPolicy: "Never",
    clientConfig: input.clientConfig,
    rules: input.rules,
    ...(input.objectSelector === undefined ? {} : { objectSelector: input.objectSelector }),
    ...(input.controllerUser === undefined
      ? {}
      : {
          matchConditions: [
            {
              name: "not-the-controller",
              expression: `request.userInfo.username != ${JSON.stringify(input.controllerUser)}`,
            },
          ],
        }),
  };
}

/** The two annotations a record consists of. */
export interface RecordKeys {
  readonly user: string;
  readonly groups: string;
}

export const REQUESTER_RECORD: RecordKeys = { user: ANNOTATIONS.requestedBy, groups: ANNOTATIONS.requestedGroups };
export const AUTHOR_RECORD: RecordKeys = { user: ANNOTATIONS.authoredBy, groups: ANNOTATIONS.authoredGroups };

export interface AdmissionAnswer {
  readonly apiVersion: "admission.k8s.io/v1";
  readonly kind: "AdmissionReview";
  readonly response: {
    readonly uid: string;
    readonly allowed: true;
    readonly patchType?: "JSONPatch";
    readonly patch?: string;
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** JSON Pointer escaping of one path segment (RFC 6901). */
const pointer = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1");

const recordOf = (o: Record<string, unknown>, keys: RecordKeys) => {
  const metadata = isObject(o.metadata) ? o.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
  return JSON.stringify([annotations[keys.user], annotations[keys.groups]]);
};

/**
 * An update that leaves the spec and the record as they were (finalizers, labels, the
 * controller's own bookkeeping) keeps the record: whoever wrote the spec stays its requester,
 * even when the writer cannot be told apart from the controller.
 */
function metadataOnly(
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  keys: RecordKeys,
): boolean {
  return (
    old !== undefined &&
    JSON.stringify(object.spec) === JSON.stringify(old.spec) &&
    recordOf(object, keys) === recordOf(old, keys)
  );
}

/** The answer to an AdmissionReview request; undefined when the body is not one. */
export function reviewWriterRecord(
  body: unknown,
  controllerUser: string | undefined,
  keys: RecordKeys,
): AdmissionAnswer | undefined {
  if (!isObject(body) || body.kind !== "AdmissionReview" || !isObject(body.request)) return undefined;
  const request = body.request;
  if (typeof request.uid !== "string") return undefined;
  const allow = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" } as const;
  const userInfo = isObject(request.userInfo) ? request.userInfo : {};
  const user = typeof userInfo.username === "string" ? userInfo.username : "";
  const object = isObject(request.object) ? request.object : undefined;
  const old = isObject(request.oldObject) ? request.oldObject : undefined;
  if (object === undefined || user === "" || user === controllerUser || metadataOnly(object, old, keys))
    return { ...allow, response: { uid: request.uid, allowed: true } };
  const groups = Array.isArray(userInfo.groups) ? userInfo.groups.filter((g) => typeof g === "string") : [];
  const record = { [keys.user]: user, [keys.groups]: groups.join(",") };
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : undefined;
  const patch =
    annotations === undefined
      ? [{ op: "add", path: "/metadata/annotations", value: record }]
      : Object.entries(record).map(([key, value]) => ({
          op: key in annotations ? "replace" : "add",
          path: `/metadata/annotations/${pointer(key)}`,
          value,
        }));
  if (annotations !== undefined && Object.entries(record).every(([key, value]) => annotations[key] === value))
    return { ...allow, response: { uid: request.uid, allowed: true } };
  return {
    ...allow,
    response: {
      uid: request.uid,
      allowed: true,
      patchType: "JSONPatch",
      patch: Buffer.from(JSON.stringify(patch), "utf8").toString("base64"),
    },
  };
}
