/**
 * The routes a browser navigates: the approvals page, signing in with a
 * pasted API key or access token, and signing out.
 */
import { cookieScope, fromAnotherSite, mayDecide, sessionOf } from './access.js';
import { boundedText, mediaType } from './body.js';
import type { PageContext } from './context.js';
import { clearedCookie, sessionCookie } from './cookies.js';
import { splitRequests } from './page-record.js';
import { htmlResponse, redirect } from './responses.js';
import { csrfMatches } from './sessions.js';
import { mainPage, messagePage, missingScopePage, signInPage, type SignInNotice } from './views.js';

/** Requests shown on the page: the newest ones; of the decided, at most `DECIDED_SHOWN`. */
const LISTED = 200;
const DECIDED_SHOWN = 50;
/** An API key or access token: one line of visible ASCII. */
const TOKEN = /^[\x21-\x7E]{1,8192}$/;
/** A request id in a path. */
export const ID_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Where sign-in sends the browser afterwards: the page, or one request on it; anything else is ignored. */
function safeNext(ctx: PageContext, next: string | null): string | undefined {
  if (next === null) return undefined;
  const base = ctx.config.basePath;
  if (next === base) return next;
  const rest = next.startsWith(`${base}/`) ? next.slice(base.length + 1) : undefined;
  return rest !== undefined && ID_SEGMENT.test(rest) ? next : undefined;
}

function signInPath(ctx: PageContext, focus: string | undefined): string {
  const base = ctx.config.basePath;
  return focus === undefined ? `${base}/sign-in` : `${base}/sign-in?next=${encodeURIComponent(`${base}/${focus}`)}`;
}

/** `GET {base}` and `GET {base}/{id}`: the page, or the way to sign in. */
export async function showPage(ctx: PageContext, request: Request, focus: string | undefined): Promise<Response> {
  const open = await sessionOf(ctx, request);
  if (open === undefined) return redirect(signInPath(ctx, focus));
  const { principal, csrf } = open.session;
  if (!mayDecide(ctx, open.session)) return htmlResponse(missingScopePage(ctx, principal, csrf), 403);
  const { desk, now } = ctx.config;
  const records = await desk.list({ limit: LISTED });
  if (focus !== undefined && !records.some((record) => record.id === focus)) {
    const focused = await desk.get(focus);
    if (focused !== undefined) records.push(focused);
  }
  const { pending, decided } = splitRequests(records);
  const data = { pending, decided: decided.slice(0, DECIDED_SHOWN) };
  return htmlResponse(mainPage(ctx, { principal, csrf, records: data, focus, now: now() }));
}

/** `GET {base}/sign-in`. */
export function signInForm(ctx: PageContext, url: URL): Response {
  const notice: SignInNotice | undefined =
    url.searchParams.get('signed-out') === null ? undefined : { kind: 'info', text: 'You are signed out.' };
  return htmlResponse(signInPage(ctx, notice, safeNext(ctx, url.searchParams.get('next'))));
}

function refusedForm(ctx: PageContext, status: number, text: string, next?: string): Response {
  return htmlResponse(signInPage(ctx, { kind: 'error', text }, next), status);
}

/** `POST {base}/sign-in`: checks the pasted credential once, as the server's identity does, and opens a session. */
export async function signIn(ctx: PageContext, request: Request): Promise<Response> {
  if (fromAnotherSite(request)) return refusedForm(ctx, 403, 'This sign-in came from another site and was refused.');
  if (mediaType(request) !== 'application/x-www-form-urlencoded') {
    return refusedForm(ctx, 415, 'Sign in with the form below.');
  }
  const text = await boundedText(request);
  if (text === undefined) return refusedForm(ctx, 413, 'That is too long to be an API key or access token.');
  const form = new URLSearchParams(text);
  const next = safeNext(ctx, form.get('next'));
  const token = (form.get('token') ?? '').trim();
  if (token === '') return refusedForm(ctx, 400, 'Paste an API key or an access token.', next);
  if (!TOKEN.test(token)) {
    return refusedForm(ctx, 400, 'An API key or access token is one line of letters, digits and symbols.', next);
  }
  const { authenticate, basePath, sessionSeconds, approverScope } = ctx.config;
  const probe = new Request(new URL(basePath, request.url), { headers: { authorization: `Bearer ${token}` } });
  const caller = await authenticate(probe);
  if (caller === undefined) {
    return refusedForm(ctx, 401, 'That key or token was not accepted: check it is complete and has not expired.', next);
  }
  if (!mayDecide(ctx, caller)) {
    const text = `That key or token names ${caller.principal}, but it does not carry the scope ${approverScope} that deciding approval requests needs.`;
    return refusedForm(ctx, 403, text, next);
  }
  const previous = await sessionOf(ctx, request);
  if (previous !== undefined) await ctx.sessions.close(previous.id);
  const open = await ctx.sessions.open(caller);
  const cookie = sessionCookie(cookieScope(ctx, request), open.id, sessionSeconds);
  return redirect(next ?? basePath, { 'set-cookie': cookie });
}

/** `POST {base}/sign-out`: ends the session (the form carries its CSRF token) and clears the cookie. */
export async function signOut(ctx: PageContext, request: Request): Promise<Response> {
  if (fromAnotherSite(request)) {
    return htmlResponse(messagePage(ctx, 'Refused', 'This sign-out came from another site and was refused.'), 403);
  }
  const open = await sessionOf(ctx, request);
  if (open !== undefined) {
    const text = mediaType(request) === 'application/x-www-form-urlencoded' ? await boundedText(request) : undefined;
    const csrf = text === undefined ? null : new URLSearchParams(text).get('csrf');
    if (!csrfMatches(open.session, csrf)) {
      return htmlResponse(
        messagePage(ctx, 'Refused', 'This sign-out did not come from the page: reload it and try again.'),
        403,
      );
    }
    await ctx.sessions.close(open.id);
  }
  const cookie = clearedCookie(cookieScope(ctx, request));
  return redirect(`${ctx.config.basePath}/sign-in?signed-out=1`, { 'set-cookie': cookie });
}
