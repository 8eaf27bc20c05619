/**
 * Which page an address names, and its HTML from the asker's session: the overview (`/`, its
 * fragment `/view`), an RGD (`/rgds/<name>`) and an instance (`/instances/<rgd>/<namespace>/<name>`,
 * `_` for no namespace). Every address is a deep link a person can share; links between pages are
 * relative, so the view works under any path prefix.
 */
import { instancePageOf } from "./instance-model.js";
import { renderInstancePage } from "./instance-html.js";
import { renderOverview } from "./overview-html.js";
import { filterOf, overviewOf } from "./overview-model.js";
import { renderRgdPage } from "./rgd-html.js";
import { rgdPageOf } from "./rgd-model.js";
import type { UiSession } from "./snapshot-session.js";

export interface RenderedPage {
  readonly title: string;
  /** The part the page's script refreshes. */
  readonly fragment: string;
  /** The address of the view's root from this page ("./", "../", …). */
  readonly root: string;
}

type Route =
  | { readonly page: "overview" }
  | { readonly page: "rgd"; readonly rgd: string }
  | { readonly page: "instance"; readonly rgd: string; readonly namespace?: string; readonly name: string };

function decoded(parts: readonly string[]): string[] | undefined {
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined; // a malformed escape: no such page
  }
}

export function routeOf(pathname: string): Route | undefined {
  if (pathname === "/" || pathname === "/view") return { page: "overview" };
  const parts = decoded(pathname.split("/").slice(1));
  if (parts === undefined || parts.some((p) => p === "")) return undefined;
  if (parts.length === 2 && parts[0] === "rgds") return { page: "rgd", rgd: parts[1] ?? "" };
  if (parts.length === 4 && parts[0] === "instances") {
    const [, rgd = "", namespace = "_", name = ""] = parts;
    return { page: "instance", rgd, ...(namespace === "_" ? {} : { namespace }), name };
  }
  return undefined;
}

/** The page at this address, or undefined when there is none (404). */
export async function renderPage(session: UiSession, url: URL, now: number): Promise<RenderedPage | undefined> {
  const route = routeOf(url.pathname);
  if (route === undefined) return undefined;
  const filter = filterOf(url.searchParams);
  switch (route.page) {
    case "overview": {
      const root = "./";
      const view = overviewOf(await session.overview(filter.namespace), filter, root, now);
      return { title: "kro ui", fragment: renderOverview(view), root };
    }
    case "rgd": {
      const root = "../";
      const view = rgdPageOf(await session.rgdPage(route.rgd, filter.namespace), filter, root, now);
      return { title: `${route.rgd} · kro ui`, fragment: renderRgdPage(view, root), root };
    }
    case "instance": {
      const root = "../../../";
      const view = instancePageOf(await session.instancePage(route.rgd, route.namespace, route.name), root, now);
      return { title: `${route.name} · kro ui`, fragment: renderInstancePage(view, root), root };
    }
  }
}
