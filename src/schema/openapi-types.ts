/**
 * The OpenAPI v3 shapes shared by every layer that reads or writes CRD schemas. We define our own
 * instead of kubernetes-types' JSONSchemaProps because that one lacks the `x-kubernetes-*`
 * extensions kro relies on (preserve-unknown-fields, validations, list types).
 */
import type { CustomResourceColumnDefinition } from "kubernetes-types/apiextensions/v1.js";

/** Any JSON value (defaults, enum members, examples). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One CEL rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export const LIST_TYPES = ["atomic", "set", "map"] as const;
export type ListType = (typeof LIST_TYPES)[number];

/** A structural OpenAPI v3 schema as the apiextensions API accepts it. */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: JsonValue;
  enum?: JsonValue[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps | boolean;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: ListType;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "granular" | "atomic";
  "x-kubernetes-validations"?: ValidationRule[];
}

export const CRD_SCOPES = ["Namespaced", "Cluster"] as const;
export type CrdScope = (typeof CRD_SCOPES)[number];

export type PrinterColumn = CustomResourceColumnDefinition;

export interface CrdNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
  deprecated?: boolean;
  deprecationWarning?: string;
}

/** How the API server reaches the conversion webhook: a URL (a local cluster) or a Service (in a cluster). */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** Base64 PEM of the CA that signed the webhook's serving certificate. */
  caBundle?: string;
}

/** `spec.conversion` of a CRD with several versions whose schemas differ. */
export interface CrdConversion {
  strategy: "None" | "Webhook";
  webhook?: { conversionReviewVersions: string[]; clientConfig?: WebhookClientConfig };
}

/** `apiextensions.k8s.io/v1` CustomResourceDefinition, as kro writes it (raw JSON friendly). */
export interface CustomResourceDefinition {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { group: string; names: CrdNames; scope: CrdScope; versions: CrdVersion[]; conversion?: CrdConversion };
}
