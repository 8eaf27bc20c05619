/**
 * Stable randomness for an instance's templates (template-dialect.md §9, "Random and time
 * functions"): Helm renders a release once per install/upgrade, so `randAlphaNum`, `uuidv4`,
 * `genCA` or `now` keep their value until the next upgrade. The controller renders on every
 * resync, so it must get the same bytes each time: templates draw from a stream seeded by the
 * instance's UID and generation (each template its own, by name), and `now` is the instant the
 * controller first saw the generation, recorded on the instance (ANNOTATIONS.renderTime) before
 * any child is written. A spec change re-rolls, like `helm upgrade`; a resync or a controller
 * restart does not. An instance without a UID (offline `kro render` of a file) renders with the
 * system's randomness and clock, as `helm template` does.
 */
import { ANNOTATIONS } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { seededEntropy, type Entropy } from "../../template/index.js";
import { metadataOf } from "../identity.js";
import type { KubeJson } from "../types.js";

const cache = new WeakMap<KubeJson, Entropy | null>();

function generationOf(instance: KubeJson): number {
  const generation = metadataOf(instance).generation;
  return typeof generation === "number" && Number.isSafeInteger(generation) ? generation : 0;
}

/** "<generation>@<RFC 3339 time>": the annotation's value. */
export function formatRenderTime(generation: number, time: string): string {
  return `${generation}@${time}`;
}

/** The recorded instant (Unix ns) for `generation`; undefined when absent, stale or malformed. */
export function parseRenderTime(value: unknown, generation: number): bigint | undefined {
  if (typeof value !== "string") return undefined;
  const at = value.indexOf("@");
  if (at < 0 || value.slice(0, at) !== String(generation)) return undefined;
  const ms = Date.parse(value.slice(at + 1));
  return Number.isFinite(ms) ? BigInt(ms) * 1_000_000n : undefined;
}

/** The seeded source of `instance`'s templates; undefined (system randomness) without a UID. */
export function instanceEntropy(instance: KubeJson): Entropy | undefined {
  const cached = cache.get(instance);
  if (cached !== undefined) return cached ?? undefined;
  const metadata = metadataOf(instance);
  const uid = metadata.uid;
  let entropy: Entropy | null = null;
  if (typeof uid === "string" && uid !== "") {
    const generation = generationOf(instance);
    const annotations = metadata.annotations;
    const recorded = parseRenderTime(
      typeof annotations === "object" && annotations !== null
        ? (annotations as Record<string, unknown>)[ANNOTATIONS.renderTime]
        : undefined,
      generation,
    );
    // Not recorded (a graph that reads no clock, or a render outside the controller): the creation
    // time, which is at least stable.
    const created = typeof metadata.creationTimestamp === "string" ? Date.parse(metadata.creationTimestamp) : NaN;
    const now = recorded ?? (Number.isFinite(created) ? BigInt(created) * 1_000_000n : 0n);
    entropy = seededEntropy(["instance", uid, String(generation)], now);
  }
  cache.set(instance, entropy);
  return entropy ?? undefined;
}

/** Template functions whose output depends on the clock (certificates are valid from now). */
const CLOCK_FUNCTIONS =
  /\b(now|ago|date|dateInZone|date_in_zone|htmlDate|htmlDateInZone|genCA|genCAWithKey|genSelfSignedCert|genSelfSignedCertWithKey|genSignedCert|genSignedCertWithKey)\b/;
const readsClock = new WeakMap<CompiledGraph, boolean>();

/** Whether any template of the graph may read the clock (a textual check: false positives only cost a write). */
export function graphReadsClock(graph: CompiledGraph): boolean {
  let known = readsClock.get(graph);
  if (known === undefined) {
    const texts =
      graph.dialect !== "template"
        ? []
        : [
            ...Object.values(graph.helm?.templates ?? {}),
            ...graph.nodes.flatMap((n) => [
              typeof n.template === "string" ? n.template : "",
              n.templateSource?.nameTemplate ?? "",
              ...n.includeWhen,
              ...n.readyWhen,
            ]),
          ];
    known = texts.some((t) => t.includes("{{") && CLOCK_FUNCTIONS.test(t));
    readsClock.set(graph, known);
  }
  return known;
}

/**
 * The render-time annotation the controller must write before it applies anything for this
 * generation (undefined: nothing to write — the graph reads no clock, or it is recorded).
 */
export function renderTimeToRecord(graph: CompiledGraph, instance: KubeJson, now: string): string | undefined {
  if (!graphReadsClock(graph)) return undefined;
  const generation = generationOf(instance);
  const annotations = metadataOf(instance).annotations;
  const current =
    typeof annotations === "object" && annotations !== null
      ? (annotations as Record<string, unknown>)[ANNOTATIONS.renderTime]
      : undefined;
  return parseRenderTime(current, generation) === undefined ? formatRenderTime(generation, now) : undefined;
}
