/**
 * `approvalsPage(options)`: the approvals page as a fetch handler. It
 * answers the paths under its base path and leaves every other one to the
 * server (`undefined`), so it sits in front of the MCP endpoint.
 */
import { askerOf, mayDecide } from './access.js';
import { apiAsker, changeRefusal, decideRequest, listRequests, readRequest } from './api-routes.js';
import { pageAssets, type PageAssets } from './assets.js';
import type { PageContext } from './context.js';
import { eventStream } from './events.js';
import { resolvePageOptions, type ApprovalsPageOptions } from './options.js';
import { ID_SEGMENT, showPage, signIn, signInForm, signOut } from './page-routes.js';
import { htmlResponse, jsonError } from './responses.js';
import { sessionStore } from './sessions.js';
import { messagePage } from './views.js';

/** The page's fetch handler. */
export interface ApprovalsPage {
  /** The answer for a path under the base path; `undefined` for any other path (the server answers it). */
  fetch(request: Request): Promise<Response | undefined>;
}

/** The path below `basePath`, or `undefined` when `pathname` is not under it. */
function below(pathname: string, basePath: string): string | undefined {
  if (pathname === basePath) return '';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

/** The request id a path segment names, or `undefined`. */
function idIn(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined; // Not percent-encoding, so not an id.
  }
  return ID_SEGMENT.test(id) ? id : undefined;
}

function notAllowed(ctx: PageContext, allow: string): Response {
  const page = messagePage(ctx, 'Not allowed', 'This address does not take that kind of request.');
  return htmlResponse(page, 405, { allow });
}

function notFound(ctx: PageContext): Response {
  return htmlResponse(messagePage(ctx, 'Not found', 'There is nothing at this address.'), 404);
}

async function api(ctx: PageContext, request: Request, url: URL, rest: string): Promise<Response> {
  const asker = await apiAsker(ctx, request);
  if (asker instanceof Response) return asker;
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const match = /^\/requests(?:\/([^/]+)(\/decision)?)?$/.exec(rest);
  const wrongMethod = (allow: string) => jsonError(405, 'METHOD_NOT_ALLOWED', `Use ${allow}`, {});
  if (rest === '/events') {
    if (method !== 'GET') return wrongMethod('GET');
    const stillAllowed = async () => {
      const now = await askerOf(ctx, request, true);
      return now !== undefined && mayDecide(ctx, now.caller);
    };
    return eventStream(ctx, request, stillAllowed);
  }
  if (match === null) return jsonError(404, 'NOT_FOUND', 'No such API route');
  const [, segment, decision] = match;
  if (segment === undefined) return method === 'GET' ? listRequests(ctx, url) : wrongMethod('GET');
  const id = idIn(segment);
  if (id === undefined) return jsonError(404, 'APPROVAL_NOT_FOUND', 'No approval request by that id');
  if (decision === undefined) return method === 'GET' ? readRequest(ctx, id) : wrongMethod('GET');
  if (method !== 'POST') return wrongMethod('POST');
  return changeRefusal(request, asker) ?? decideRequest(ctx, request, asker, id);
}

async function route(ctx: PageContext, assets: PageAssets, request: Request, url: URL, rest: string) {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (rest.startsWith('/api/')) return api(ctx, request, url, rest.slice('/api'.length));
  if (rest === '' || rest === '/') return method === 'GET' ? showPage(ctx, request, undefined) : notAllowed(ctx, 'GET');
  if (rest === '/sign-in') {
    if (method === 'GET') return signInForm(ctx, url);
    return method === 'POST' ? signIn(ctx, request) : notAllowed(ctx, 'GET, POST');
  }
  if (rest === '/sign-out') return method === 'POST' ? signOut(ctx, request) : notAllowed(ctx, 'POST');
  if (rest.startsWith('/assets/')) {
    if (method !== 'GET') return notAllowed(ctx, 'GET');
    return assets.serve(rest.slice('/assets/'.length), url.searchParams.get('v')) ?? notFound(ctx);
  }
  const id = /^\/[^/]+$/.test(rest) ? idIn(rest.slice(1)) : undefined;
  if (id === undefined) return notFound(ctx);
  return method === 'GET' ? showPage(ctx, request, id) : notAllowed(ctx, 'GET');
}

/**
 * Creates the page. Options are checked here; a bad one throws
 * `ConfigurationError` naming it. Serve it before the MCP endpoint:
 * `(await page.fetch(request)) ?? mcp.fetch(request)`. The request's URL
 * must be the one the browser used (scheme and host), as the `Origin`
 * check and the cookie's `__Host-` prefix go by it.
 */
export function approvalsPage(options: ApprovalsPageOptions): ApprovalsPage {
  const config = resolvePageOptions(options);
  const assets = pageAssets(config.basePath);
  const sessions = sessionStore(config.desk.store, config.desk.keyPrefix, config.sessionSeconds, config.now);
  const ctx: PageContext = { config, sessions, assetPaths: assets.paths };
  return {
    async fetch(request) {
      const url = new URL(request.url);
      const rest = below(url.pathname, config.basePath);
      return rest === undefined ? undefined : route(ctx, assets, request, url, rest);
    },
  };
}
