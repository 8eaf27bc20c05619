// placeholder
export async function runSteady() { throw new Error("steady: not yet"); }
