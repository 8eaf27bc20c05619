/**
 * Who wrote an RGD, recorded at admission so that nobody can forge it: the write gate bounds every
 * write and read an RGD's instances cause in this cluster by that user's rights (an RGD grants only
 * what its author may do, never the controller's rights). Two cluster objects:
 *
 * - the static ValidatingAdmissionPolicy `kro-rgd-author` (evaluated by the API server itself, so
 *   it holds while no controller runs): a write of an RGD's spec or of its record may leave a record
 *   (kro.run/authored-by, -groups) only if it names the writer; once an RGD has a record, a spec
 *   write may not drop it;
 * - a MutatingWebhookConfiguration that sends RGD writes to the controller, which stamps the
 *   writer (writer-record-review.ts), so nobody has to write the record by hand. One per RGD
 *   selector, matching only the RGDs this controller serves (controllers sharded by selector each
 *   stamp their own). `failurePolicy: Ignore` and not for the controller's own identity: an RGD
 *   created while no controller answers, or by the controller's own user, has no record and is
 *   bounded by the controller's rights, as in kro.
 *
 * Both are applied at the controller's start, again after a certificate rotation or a change of
 * RGD leader, and whenever a watch sees one deleted or changed by someone else.
 */
import { createHash } from "node:crypto";
import { ANNOTATIONS, KRO_GROUP, LABELS } from "../../api/index.js";
import type { InformerLease, KubeObject } from "../../kube/index.js";
import { parseLabelSelector } from "../../kube/index.js";
import type { WebhookClientConfig } from "../../schema/index.js";
import { isJsonSubset, type ControllerContext } from "../context/index.js";
import { applyExactly } from "./author-policy.js";
import { annotation } from "./delegation-policy-objects.js";
import { AUTHOR_RECORD, reviewWriterRecord, RGD_AUTHOR_PATH, writerRecordWebhook } from "./writer-record-review.js";

export const RGD_AUTHOR_POLICY_NAME = "kro-rgd-author";
/** The label every object of the record carries (watched, restored). */
export const RGD_AUTHOR_LABEL = "kro.run/rgd-author-record";

const ADMISSION = "admissionregistration.k8s.io/v1";
const RGD_RULE = {
  apiGroups: [KRO_GROUP],
  apiVersions: ["*"],
  resources: ["resourcegraphdefinitions"],
  operations: ["CREATE", "UPDATE"],
};
const labels = { [LABELS.managedBy]: "kro", [RGD_AUTHOR_LABEL]: "true" };

const by = (o: string) => annotation(o, ANNOTATIONS.authoredBy);
const groups = (o: string) => annotation(o, ANNOTATIONS.authoredGroups);

/** CEL: this write sets the RGD's spec or its record. */
export const WRITES_AUTHORSHIP = [
  `request.operation == "CREATE"`,
  "object.spec != oldObject.spec",
  `${by("object")} != ${by("oldObject")}`,
  `${groups("object")} != ${groups("oldObject")}`,
].join(" || ");

/** CEL: the record names the writer (groups: absent, or exactly theirs) — or there is none and was none. */
export const RECORDS_THE_WRITER =
  `(${by("object")} == "" && (request.operation == "CREATE" || ${by("oldObject")} == ""))` +
  ` || (${by("object")} == request.userInfo.username && (${groups("object")} == "" || ${groups("object")} == request.userInfo.groups.join(",")))`;

const MESSAGE =
  `"ResourceGraphDefinition " + object.metadata.name + " records who wrote it, and writing its spec makes you its author: set ` +
  `${ANNOTATIONS.authoredBy}: \\"" + request.userInfo.username + "\\" and ${ANNOTATIONS.authoredGroups}: \\"" + request.userInfo.groups.join(",") + "\\" ` +
  `(the controller's webhook does this while it runs; what the RGD's instances cause is bounded by its author's rights)"`;

export function rgdAuthorPolicyObjects(): Record<string, unknown>[] {
  const metadata = { name: RGD_AUTHOR_POLICY_NAME, labels };
  return [
    {
      apiVersion: ADMISSION,
      kind: "ValidatingAdmissionPolicy",
      metadata,
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [RGD_RULE] },
        validations: [
          {
            expression: `!(${WRITES_AUTHORSHIP}) || (${RECORDS_THE_WRITER})`,
            messageExpression: MESSAGE,
            reason: "Forbidden",
          },
        ],
      },
    },
    {
      apiVersion: ADMISSION,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata,
      spec: { policyName: RGD_AUTHOR_POLICY_NAME, validationActions: ["Deny"] },
    },
  ];
}

/** The webhook's name: one per RGD selector, so controllers that split RGDs by label each stamp their own. */
export function rgdAuthorWebhookName(rgdSelector: string | undefined): string {
  if (rgdSelector === undefined || rgdSelector.trim() === "") return RGD_AUTHOR_POLICY_NAME;
  return `${RGD_AUTHOR_POLICY_NAME}.${createHash("sha256").update(rgdSelector).digest("hex").slice(0, 10)}`;
}

export function rgdAuthorWebhookObject(input: {
  readonly rgdSelector: string | undefined;
  readonly clientConfig: WebhookClientConfig;
  readonly controllerUser: string;
}): Record<string, unknown> {
  const selector = input.rgdSelector === undefined ? {} : parseLabelSelector(input.rgdSelector);
  return {
    apiVersion: ADMISSION,
    kind: "MutatingWebhookConfiguration",
    metadata: { name: rgdAuthorWebhookName(input.rgdSelector), labels },
    webhooks: [
      writerRecordWebhook({
        name: "rgd-author.kro.run",
        clientConfig: input.clientConfig,
        rules: [{ ...RGD_RULE, scope: "*" }],
        objectSelector: selector,
        controllerUser: input.controllerUser,
      }),
    ],
  };
}

type Ctx = Pick<
  ControllerContext,
  "client" | "conversion" | "controllerUser" | "logger" | "options" | "mayWriteCluster" | "informers" | "rgdQueue"
>;

/**
 * Keeps the record's policy and webhook on the cluster for one controller: `ensure()` applies
 * them (one application at a time; a call meanwhile runs once more after it), `watch()` restores
 * them when someone else deletes or changes them. Nothing with the author check off controller-wide.
 */
export class RgdAuthorAdmission {
  #running: Promise<void> | undefined;
  #again = false;
  /** What was last applied, by "Kind/name", to tell our own events from someone else's change. */
  readonly #applied = new Map<string, unknown>();

  constructor(
    private readonly ctx: Ctx,
    private readonly rgdSelector: string | undefined,
  ) {}

  ensure(): Promise<void> {
    if (this.ctx.options.authorCheck === "Disabled" || !this.ctx.mayWriteCluster() || this.ctx.rgdQueue.isShutDown)
      return Promise.resolve();
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#apply().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        void this.ensure();
      }
    });
    return this.#running;
  }

  async #apply(): Promise<void> {
    try {
      const objects = [...rgdAuthorPolicyObjects()];
      const controllerUser = await this.ctx.controllerUser();
      // Without its own name the webhook would stamp the controller as an RGD's author: no record is the safe side.
      if (controllerUser !== undefined) {
        this.ctx.conversion.serve(RGD_AUTHOR_PATH, (body) => reviewWriterRecord(body, controllerUser, AUTHOR_RECORD));
        const clientConfig = await this.ctx.conversion.clientConfig(RGD_AUTHOR_PATH);
        objects.push(rgdAuthorWebhookObject({ rgdSelector: this.rgdSelector, clientConfig, controllerUser }));
      }
      for (const object of objects) {
        this.#applied.set(keyOf(object), contentOf(object));
        await applyExactly(this.ctx.client, object);
      }
    } catch (error) {
      this.ctx.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "cannot install the RGD author record (admission policy and webhook); RGDs written meanwhile may have no record, and are then bounded by the controller's rights",
      );
    }
  }

  /** Restores an object of ours deleted or changed by someone else. */
  watch(): InformerLease<KubeObject>[] {
    const kinds = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingWebhookConfiguration"];
    return kinds.map((kind) => {
      const lease = this.ctx.informers.acquire({
        apiVersion: ADMISSION,
        kind,
        labelSelector: `${RGD_AUTHOR_LABEL}=true`,
      });
      const mine = (object: KubeObject) => this.#applied.has(keyOf(object));
      lease.informer.addHandlers({
        onUpdate: (_old, object) => {
          const wanted = this.#applied.get(keyOf(object));
          if (mine(object) && !isJsonSubset(wanted, contentOf(object))) void this.ensure();
        },
        onDelete: (object) => {
          if (mine(object)) void this.ensure();
        },
      });
      return lease;
    });
  }
}

const keyOf = (object: Record<string, unknown>) =>
  `${String(object.kind)}/${String((object.metadata as { name?: unknown } | undefined)?.name)}`;
const contentOf = (object: Record<string, unknown>) => object.spec ?? object.webhooks;
