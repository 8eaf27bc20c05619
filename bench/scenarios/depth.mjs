// placeholder
export async function runDepth() { throw new Error("depth: not yet"); }
