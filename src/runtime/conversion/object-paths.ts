/**
 * Reading, writing and removing a field of a JSON object by its path of keys, creating the
 * objects on the way when writing. Used by conversions, whose paths are all map keys.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function getPath(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const step of path) {
    if (!isObject(node) || !Object.hasOwn(node, step)) return undefined;
    node = node[step];
  }
  return node;
}

export function setPath(root: Json, path: readonly string[], value: unknown): void {
  let node = root;
  for (const step of path.slice(0, -1)) {
    const next = node[step];
    if (isObject(next)) node = next;
    else {
      const created: Json = {};
      node[step] = created;
      node = created;
    }
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

export function deletePath(root: Json, path: readonly string[]): void {
  const parent = getPath(root, path.slice(0, -1));
  const last = path.at(-1);
  if (isObject(parent) && last !== undefined) Reflect.deleteProperty(parent, last);
}
