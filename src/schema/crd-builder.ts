/**
 * The CustomResourceDefinition an RGD implies (§3.5): one served+storage version, status
 * subresource, the SimpleSchema spec, the inferred status, and kro's (or the author's) columns.
 * With extra versions (docs/design/api-versions.md) each gets its own spec schema and the same status
 * and columns, one is the storage version, and conversion is by webhook (the controller fills
 * in where the webhook is and its CA bundle; offline the clientConfig is absent).
 * Ownership labels are the graph/controller layer's business; it passes them in `labels`.
 */
import { error, type Issue, type IssuePath } from "../diag/index.js";
import { canonicalizeSchema } from "./canonical-schema.js";
import { crdNameFor, crdNamesFor, DEFAULT_GROUP } from "./crd-names.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import {
  CRD_SCOPES,
  type CrdScope,
  type CrdVersion,
  type CustomResourceDefinition,
  type JSONSchemaProps,
  type PrinterColumn,
} from "./openapi-types.js";
import { printerColumnsFor } from "./printer-columns.js";
import { buildStatusSchema, type InferredStatusField } from "./status-schema.js";

export interface CrdSynthesisInput {
  /** `spec.schema.kind`, UpperCamelCase. */
  readonly kind: string;
  /** `spec.schema.apiVersion`, e.g. "v1alpha1": the CRD's only version. */
  readonly version: string;
  /** `spec.schema.group`; default "kro.run". */
  readonly group?: string;
  readonly scope?: CrdScope;
  /** Output of parseSimpleSchema. */
  readonly specSchema: JSONSchemaProps;
  /** Status leaves with their inferred types (author conditions already removed). */
  readonly statusFields?: readonly InferredStatusField[];
  readonly additionalPrinterColumns?: readonly PrinterColumn[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Where `spec.schema` sits, for issue paths; default ["spec", "schema"]. */
  readonly path?: IssuePath;
  /** The hub (`version`) is marked deprecated, with this warning for kubectl. */
  readonly deprecated?: { readonly warning?: string };
  /** Further versions beside `version`, with their own spec schemas. */
  readonly extraVersions?: readonly ExtraCrdVersion[];
  /** The storage version; default `version`. */
  readonly storageVersion?: string;
}

export interface ExtraCrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly specSchema: JSONSchemaProps;
}

export interface CrdSynthesisResult {
  readonly crd: CustomResourceDefinition;
  readonly issues: readonly Issue[];
}

const KIND_PATTERN = /^[A-Z][a-zA-Z0-9]*$/;
const VERSION_PATTERN = /^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/;
/** A DNS-1123 subdomain, as the API server requires of a CRD group. */
const GROUP_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function synthesizeCrd(input: CrdSynthesisInput): CrdSynthesisResult {
  const path = input.path ?? ["spec", "schema"];
  const group = input.group ?? DEFAULT_GROUP;
  const scope = input.scope ?? "Namespaced";
  const issues: Issue[] = [];
  const invalid = (field: string, message: string) => {
    issues.push(error(SCHEMA_ISSUE_CODES.invalidCrdInput, [...path, field], message));
  };
  if (!KIND_PATTERN.test(input.kind))
    invalid("kind", `kind "${input.kind}" must be UpperCamelCase (${KIND_PATTERN.source})`);
  if (!VERSION_PATTERN.test(input.version))
    invalid("apiVersion", `apiVersion "${input.version}" must match ${VERSION_PATTERN.source}`);
  if (!GROUP_PATTERN.test(group) || group.length > 253) invalid("group", `group "${group}" must be a DNS subdomain`);
  if (!(CRD_SCOPES as readonly string[]).includes(scope))
    invalid("scope", `scope "${scope}" must be one of ${CRD_SCOPES.join(", ")}`);
  const name = crdNameFor(input.kind, group);
  if (name.length > 253) invalid("kind", `CRD name ${name} is longer than 253 characters`);

  const status = buildStatusSchema(input.statusFields ?? [], [...path, "status"]);
  issues.push(...status.issues);

  const versionOf = (
    name: string,
    specSchema: JSONSchemaProps,
    served: boolean,
    deprecation: { deprecated: boolean; warning?: string | undefined },
  ): CrdVersion => {
    const version: CrdVersion = {
      name,
      served,
      storage: name === (input.storageVersion ?? input.version),
      schema: {
        openAPIV3Schema: canonicalizeSchema({
          type: "object",
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object" },
            spec: structuredClone(specSchema),
            status: structuredClone(status.schema),
          },
        }),
      },
      subresources: { status: {} },
      additionalPrinterColumns: printerColumnsFor(input.additionalPrinterColumns),
    };
    if (deprecation.deprecated) version.deprecated = true;
    if (deprecation.warning !== undefined) version.deprecationWarning = deprecation.warning;
    return version;
  };
  const extra = input.extraVersions ?? [];
  const versions = [
    versionOf(input.version, input.specSchema, true, {
      deprecated: input.deprecated !== undefined,
      warning: input.deprecated?.warning,
    }),
    ...extra.map((v) =>
      versionOf(v.name, v.specSchema, v.served, { deprecated: v.deprecated, warning: v.deprecationWarning }),
    ),
  ];

  const metadata: CustomResourceDefinition["metadata"] = { name };
  if (input.labels !== undefined && Object.keys(input.labels).length > 0) metadata.labels = { ...input.labels };
  if (input.annotations !== undefined && Object.keys(input.annotations).length > 0)
    metadata.annotations = { ...input.annotations };
  const crd: CustomResourceDefinition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata,
    spec: {
      group,
      names: crdNamesFor(input.kind, {
        ...(input.shortNames === undefined ? {} : { shortNames: input.shortNames }),
        ...(input.categories === undefined ? {} : { categories: input.categories }),
      }),
      scope,
      versions,
      // Several versions with different schemas: the API server asks the controller to convert.
      ...(extra.length === 0
        ? {}
        : { conversion: { strategy: "Webhook" as const, webhook: { conversionReviewVersions: ["v1"] } } }),
    },
  };
  return { crd, issues };
}
