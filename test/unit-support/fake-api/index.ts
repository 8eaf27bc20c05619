/**
 * An in-memory Kubernetes API for unit tests: a FakeCluster (objects, resourceVersions,
 * preconditions, finalizers, watches, faults) behind the real KubeClient, which reaches it
 * through FakeTransport instead of HTTP; an Actor writes beside the client under test.
 */
export { Actor } from "./actor.js";
export { clientFor } from "./fake-client.js";
export { FakeClock, FakeCluster, statusError } from "./fake-cluster.js";
export { Faults, WRITE_VERBS, type FaultAction, type FaultMatch, type RequestInfo, type Verb } from "./faults.js";
export { builtinKinds, type FakeKind } from "./resources.js";
export { settle } from "./settle.js";
