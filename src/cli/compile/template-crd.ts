/**
 * `kro generate crd` on a template-dialect RGD: that dialect attaches to the user's own CRD
 * (docs/reference/seed-dialect.md §2), so there is nothing to generate. Without that CRD the
 * command says so and fails; with it (`--crd`), it prints the status storage the controller would
 * add with server-side apply, or says that nothing needs adding.
 */
import { toYaml } from "../../api/index.js";
import { attachToCrd, crdDefines, type TemplateCompiledGraph } from "../../graph/index.js";
import { isKind, loadFiles } from "../inputs/index.js";

export async function printTemplateDialectCrd(
  graph: TemplateCompiledGraph,
  crdFiles: readonly string[],
  output: "yaml" | "json",
): Promise<number> {
  const { group, version, kind } = graph.instance;
  const label = `${kind}.${group}/${version}`;
  const crds = (await loadFiles(crdFiles)).flatMap((f) =>
    f.documents.filter((d) => isKind(d, "CustomResourceDefinition")).map((d) => d.value),
  );
  const crd = crds.find((c) => crdDefines(c, graph.instance));
  if (crd === undefined) {
    process.stderr.write(
      `kro: ${graph.name} uses the template dialect (spec.resourceKind): it attaches to your existing CRD for ${label} and generates none.\n` +
        `Pass that CRD with --crd <file> to see the status storage the controller would add to it.\n`,
    );
    return 1;
  }
  const attached = attachToCrd(crd, graph.instance, graph.rollout !== undefined);
  if (!attached.ok) {
    process.stderr.write(`kro: ${graph.name}: ${attached.message}\n`);
    return 1;
  }
  if (attached.apply === undefined) {
    process.stderr.write(
      `kro: ${graph.name} uses your CRD ${attached.crdName} for ${label}; it already stores status, so the controller changes nothing.\n`,
    );
    return 0;
  }
  if (output === "json") {
    process.stdout.write(`${JSON.stringify(attached.apply, null, 2)}\n`);
  } else {
    const header = [
      `# ${graph.name} uses the template dialect: it attaches to your CRD ${attached.crdName} and generates none.`,
      "# The controller adds status storage so statusMappings are visible (server-side apply, forced;",
      "# spec.versions is an atomic list, so it is sent whole, unchanged except for):",
      ...attached.additions.map((a) => `#   + ${a}`),
    ];
    process.stdout.write(`${header.join("\n")}\n${toYaml(attached.apply)}`);
  }
  return 0;
}
