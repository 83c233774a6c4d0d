/**
 * Who is asking, and whether a change they ask for may be made: a browser
 * is known by its session cookie, a CLI by its `Authorization` header; a
 * change made through a cookie needs the session's CSRF token and must not
 * come from another site.
 */
import type { PageContext } from './context.js';
import { cookieName, readCookie, type CookieScope } from './cookies.js';
import type { PageCaller } from './options.js';
import type { OpenSession } from './sessions.js';

/** A caller the server identified, and the browser session that said so (`undefined` for a header). */
export interface Asker {
  readonly caller: PageCaller;
  readonly session: OpenSession | undefined;
}

/** Where the cookie of this request's scheme applies. */
export function cookieScope(ctx: PageContext, request: Request): CookieScope {
  return { secure: new URL(request.url).protocol === 'https:', basePath: ctx.config.basePath };
}

/** The live session the request's cookie names. */
export async function sessionOf(ctx: PageContext, request: Request): Promise<OpenSession | undefined> {
  const id = readCookie(request.headers.get('cookie'), cookieName(cookieScope(ctx, request)));
  return ctx.sessions.find(id);
}

/**
 * Who is asking: by the `Authorization` header when `headerAllowed` and the
 * request has one (the cookie is then not read), else by the session cookie.
 */
export async function askerOf(ctx: PageContext, request: Request, headerAllowed: boolean): Promise<Asker | undefined> {
  if (headerAllowed && request.headers.has('authorization')) {
    const caller = await ctx.config.authenticate(request);
    return caller === undefined ? undefined : { caller, session: undefined };
  }
  const open = await sessionOf(ctx, request);
  return open === undefined ? undefined : { caller: open.session, session: open };
}

/** Whether the caller holds the scope an approver needs. */
export function mayDecide(ctx: PageContext, caller: PageCaller): boolean {
  return caller.scopes.includes(ctx.config.approverScope);
}

/**
 * Whether a browser sent the request from another site: an `Origin` that is
 * not the request's own, or `Sec-Fetch-Site: cross-site`. `Origin: null` is
 * foreign unless the browser says `Sec-Fetch-Site: same-origin`: that is
 * what a form posted by a page of this origin sends under the page's
 * `Referrer-Policy: no-referrer`. A request with neither header (a CLI) is
 * not from another site.
 */
export function fromAnotherSite(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site')?.toLowerCase();
  if (site === 'cross-site') return true;
  const origin = request.headers.get('origin');
  if (origin === null || origin === new URL(request.url).origin) return false;
  return !(origin === 'null' && site === 'same-origin');
}
