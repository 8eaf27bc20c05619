/**
 * The fake API's wire: what the real KubeClient's Transport does (one request in, status and body
 * out, ApiError for every non-2xx answer), served from a FakeCluster instead of a socket. The
 * client above it — paths, discovery, list, informers, watches — is the real one, unchanged.
 * Every request is logged on the cluster and passes its planted faults first.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, type KubeObject } from "../../../src/kube/index.js";
import type { HttpRequest, HttpResponse } from "../../../src/kube/transport.js";
import type { FakeCluster } from "./fake-cluster.js";
import { statusError } from "./fake-cluster.js";
import type { RequestInfo, Verb } from "./faults.js";
import { apiVersionOf, type Target } from "./resources.js";
import { fieldSelector, labelSelector } from "./selectors.js";

const APPLY = "application/apply-patch+yaml";
const METADATA = "as=PartialObjectMetadata";

export class FakeTransport {
  constructor(private readonly cluster: FakeCluster) {}

  get server(): string {
    return `https://${this.cluster.name}.fake`;
  }

  wakeRetriesWhen(): void {
    /* the fake never fails on its own: nothing to wake */
  }

  poolStats(): { request: { open: number; queued: number }; watch: { open: number; queued: number } } {
    return { request: { open: 0, queued: 0 }, watch: { open: 0, queued: 0 } };
  }

  close(): void {
    /* no sockets */
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.path, "https://fake");
    try {
      const body = await this.serve(req, url);
      return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    } catch (error) {
      throw rewrap(error, req);
    }
  }

  async stream(req: HttpRequest): Promise<IncomingMessage> {
    const url = new URL(req.path, "https://fake");
    const target = this.target(url);
    try {
      await this.admit("watch", target, url, undefined);
      const selects = and(
        labelSelector(url.searchParams.get("labelSelector")),
        fieldSelector(url.searchParams.get("fieldSelector")),
      );
      const since = Number(url.searchParams.get("resourceVersion") ?? this.cluster.resourceVersion);
      return this.cluster.watch(target.kind, target.namespace, selects, (req.accept ?? "").includes(METADATA), since)
        .response;
    } catch (error) {
      throw rewrap(error, req);
    }
  }

  private target(url: URL): Target {
    const target = this.cluster.kinds.parse(url.pathname);
    if (target === undefined)
      throw statusError(404, "NotFound", `the server could not find the requested resource (${url.pathname})`);
    return target;
  }

  /** Logs the request and runs its faults: a `before` runs on the server, a `fail` is the answer. */
  private async admit(verb: Verb, target: Target, url: URL, name: string | undefined): Promise<void> {
    const info: RequestInfo = {
      verb,
      apiVersion: apiVersionOf(target.kind),
      kind: target.kind.kind,
      namespace: target.namespace,
      name: name ?? target.name,
      subresource: target.subresource,
      fieldManager: url.searchParams.get("fieldManager") ?? undefined,
    };
    this.cluster.requests.push(info);
    for (const action of this.cluster.faults.take(info)) {
      if ("before" in action) await action.before();
      else
        throw statusError(
          action.fail.status,
          action.fail.reason,
          action.fail.message ?? action.fail.reason,
          target.kind,
          info.name,
        );
    }
  }

  private async serve(req: HttpRequest, url: URL): Promise<unknown> {
    const path = url.pathname;
    if (path === "/api" || path === "/apis") return this.cluster.kinds.discovery(path);
    if (path === "/version") return { major: "1", minor: "33", gitVersion: "v1.33.0" };
    if (path === "/readyz") return "ok";
    if (url.searchParams.get("dryRun") !== null) throw new Error("fake API: dryRun is not modelled");
    const target = this.target(url);
    const { kind, namespace, name, subresource } = target;
    const body = req.body === undefined || req.body === "" ? undefined : (JSON.parse(req.body) as KubeObject);
    const options = { subresource, fieldManager: url.searchParams.get("fieldManager") ?? undefined };
    const metadataOnly = (req.accept ?? "").includes(METADATA);
    switch (req.method) {
      case "GET": {
        if (name === undefined) {
          await this.admit("list", target, url, undefined);
          const selects = and(
            labelSelector(url.searchParams.get("labelSelector")),
            fieldSelector(url.searchParams.get("fieldSelector")),
          );
          const items = this.cluster.list(kind, namespace, selects).map((o) => (metadataOnly ? partial(o) : o));
          return {
            apiVersion: "v1",
            kind: `${kind.kind}List`,
            metadata: { resourceVersion: this.cluster.resourceVersion },
            items,
          };
        }
        await this.admit("get", target, url, name);
        const object = this.cluster.get(kind, namespace, name);
        return metadataOnly ? partial(object) : object;
      }
      case "POST": {
        if (body === undefined) throw statusError(400, "BadRequest", "no body");
        if (kind.kind.endsWith("Review")) {
          await this.admit("review", target, url, undefined);
          return review(body, this.cluster.authorize);
        }
        await this.admit("create", target, url, body.metadata?.name);
        return this.cluster.create(kind, namespace, body, options);
      }
      case "PUT":
        if (body === undefined || name === undefined)
          throw statusError(400, "BadRequest", "PUT needs a name and a body");
        await this.admit("update", target, url, name);
        return this.cluster.update(kind, namespace, body, options);
      case "PATCH": {
        if (body === undefined || name === undefined)
          throw statusError(400, "BadRequest", "PATCH needs a name and a body");
        if (req.contentType === APPLY) {
          await this.admit("apply", target, url, name);
          return this.cluster.apply(kind, namespace, name, body, options);
        }
        await this.admit("patch", target, url, name);
        return this.cluster.patch(kind, namespace, name, body, options);
      }
      case "DELETE": {
        if (name === undefined) throw statusError(405, "MethodNotAllowed", "collection deletes are not modelled");
        await this.admit("delete", target, url, name);
        const preconditions =
          (body as { preconditions?: { uid?: string; resourceVersion?: string } } | undefined)?.preconditions ?? {};
        return this.cluster.delete(kind, namespace, name, preconditions);
      }
    }
  }
}

const and =
  (a: (o: KubeObject) => boolean, b: (o: KubeObject) => boolean) =>
  (o: KubeObject): boolean =>
    a(o) && b(o);

const partial = (o: KubeObject): KubeObject => ({
  apiVersion: "meta.k8s.io/v1",
  kind: "PartialObjectMetadata",
  metadata: o.metadata ?? {},
});

/** Reviews are answered, not stored; an access review as the cluster's `authorize` says. */
function review(body: KubeObject, authorize: (spec: Record<string, unknown>) => boolean): KubeObject {
  if (body.kind === "SelfSubjectReview")
    return {
      ...body,
      status: { userInfo: { username: "system:serviceaccount:kro-system:kro", groups: ["system:serviceaccounts"] } },
    };
  if (body.kind === "TokenReview") return { ...body, status: { authenticated: false } };
  const spec = (body as { spec?: Record<string, unknown> }).spec ?? {};
  return { ...body, status: { allowed: authorize(spec) } };
}

/** The cluster's error again, as the transport raises it: this request's verb and path, the same Status. */
function rewrap(error: unknown, req: HttpRequest): unknown {
  if (!(error instanceof ApiError)) return error;
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: error.reason,
    code: error.status,
    message: error.serverMessage,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
  return new ApiError({ status: error.status, verb: req.method, path: req.path, body });
}
