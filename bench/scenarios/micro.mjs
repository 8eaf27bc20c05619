// placeholder
export async function runMicro() { throw new Error("micro: not yet"); }
