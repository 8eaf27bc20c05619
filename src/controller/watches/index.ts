/**
 * watches: the informers behind every reconcile — managed child kinds (with their cache
 * projections), the scopes external references and chart lookups read, and who still holds a
 * kind. Answers "what is in the cluster"; never writes to it and never imports the reconcilers.
 */
export { ChildWatches, identityFor, type Overlay } from "./child-watches.js";
export { RemoteWatches, type RemoteTarget } from "./remote-watches.js";
