// ui: the controller's optional web endpoint — the read-only view of `kro ui`, for whoever asks
// with a Kubernetes bearer token. The controller's rights are used only for the TokenReview; every
// read is made with the asker's token. It may not write, and may not read with the controller's client.
export { servedGraphSource, startControllerUi, type ControllerUi, type ControllerUiOptions } from "./web-endpoint.js";
