/**
 * Checks on a child's apiVersion/kind that kro makes before it reads the template (kro
 * pkg/graph/builder.go, buildRGResource): the apiVersion must parse as a GroupVersion
 * (apimachinery's ParseGroupVersion), the kind must be known to the API server, and a
 * CustomResourceDefinition template may hold expressions only under metadata.
 */
import { error, warning, type Issue, type IssuePath } from "../diag/index.js";
import type { FoundField } from "../expr/index.js";
import type { SchemaResolver } from "./schema-resolver.js";

/** `warn`: offline, a kind without a schema may be a CRD we cannot see; `error`: discovery knows every kind. */
export type UnknownKinds = "warn" | "error";

export const CHILD_KIND_CODES = {
  apiVersion: "rgd.invalid-api-version",
  unknownKind: "rgd.unknown-kind",
  crdExpression: "rgd.crd-template-expression",
} as const;

const DNS_LABELS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VERSION = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why `apiVersion` is not `version` or `group/version`, or undefined when it is. */
export function groupVersionProblem(apiVersion: string): string | undefined {
  const parts = apiVersion.split("/");
  if (parts.length > 2) return `unexpected GroupVersion string: ${JSON.stringify(apiVersion)}`;
  const [group, version] = parts.length === 1 ? ["", parts[0] ?? ""] : [parts[0] ?? "", parts[1] ?? ""];
  if (!VERSION.test(version)) return `apiVersion ${JSON.stringify(apiVersion)} has no valid version`;
  if (parts.length === 2 && group !== "" && !DNS_LABELS.test(group))
    return `apiVersion ${JSON.stringify(apiVersion)} has an invalid group ${JSON.stringify(group)}`;
  return undefined;
}

export function checkChildKind(
  apiVersion: string,
  kind: string,
  path: IssuePath,
  resolver: SchemaResolver | undefined,
  unknownKinds: UnknownKinds,
): Issue[] {
  const problem = groupVersionProblem(apiVersion);
  if (problem !== undefined) return [error(CHILD_KIND_CODES.apiVersion, path, problem)];
  if (resolver === undefined || resolver.resolve(apiVersion, kind) !== undefined) return [];
  const message = `no schema is known for ${kind} (${apiVersion})`;
  return unknownKinds === "error"
    ? [error(CHILD_KIND_CODES.unknownKind, path, `${message}: the API server does not serve this kind`)]
    : [
        warning(
          CHILD_KIND_CODES.unknownKind,
          path,
          `${message}: its fields are not checked (pass its CRD with --crd, or use --cluster; --strict makes this an error)`,
        ),
      ];
}

/** kro: "CEL expressions in CRDs are only supported for metadata fields". */
export function checkCrdTemplateExpressions(fields: readonly FoundField[], base: IssuePath): Issue[] {
  return fields
    .filter((f) => f.path[0] !== "metadata" || f.path.length < 2)
    .map((f) =>
      error(
        CHILD_KIND_CODES.crdExpression,
        [...base, ...f.path],
        "expressions in a CustomResourceDefinition template are only supported under metadata",
      ),
    );
}
