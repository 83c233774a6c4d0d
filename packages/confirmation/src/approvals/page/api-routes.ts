/**
 * The JSON API the page (and a CLI) uses: list and read requests, decide
 * one. A browser is known by its session, a CLI by its `Authorization`
 * header; a decision made through the session needs its CSRF token.
 */
import { ExtensionError } from '@ext/core';
import type { ApprovalRecord, ApprovalState } from '../record.js';
import { askerOf, fromAnotherSite, mayDecide, type Asker } from './access.js';
import { boundedText, mediaType } from './body.js';
import type { PageContext } from './context.js';
import { parseDecision } from './decision.js';
import { pageRecord } from './page-record.js';
import { jsonError, jsonResponse } from './responses.js';
import { csrfMatches } from './sessions.js';

const STATES: readonly string[] = ['pending', 'approved', 'denied', 'expired', 'cancelled'];
const MAX_LIST = 500;

/** Why a decision was refused, by the desk's code: the HTTP status. */
const REFUSALS: Readonly<Record<string, number>> = {
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_ALREADY_DECIDED: 409,
  APPROVAL_EXPIRED: 409,
};

/** The caller when they may use the API, else the `401` or `403` that says why not. */
export async function apiAsker(ctx: PageContext, request: Request): Promise<Asker | Response> {
  const asker = await askerOf(ctx, request, true);
  if (asker === undefined) {
    return jsonError(
      401,
      'UNAUTHENTICATED',
      'Sign in on the page, or send Authorization: Bearer <API key or access token>',
    );
  }
  if (!mayDecide(ctx, asker.caller)) {
    return jsonError(403, 'MISSING_SCOPE', `Deciding approval requests needs the scope ${ctx.config.approverScope}`);
  }
  return asker;
}

/** A change may be made: not from another site, and with the session's CSRF token when a cookie says who asks. */
export function changeRefusal(request: Request, asker: Asker): Response | undefined {
  if (fromAnotherSite(request)) {
    return jsonError(403, 'FOREIGN_ORIGIN', 'Changes are accepted only from the approvals page itself');
  }
  if (asker.session !== undefined && !csrfMatches(asker.session.session, request.headers.get('x-csrf-token'))) {
    return jsonError(403, 'CSRF_TOKEN_INVALID', 'The X-CSRF-Token header is missing or wrong: reload the page');
  }
  return undefined;
}

/** `GET {base}/api/requests?state=&limit=`: newest first. */
export async function listRequests(ctx: PageContext, url: URL): Promise<Response> {
  const state = url.searchParams.get('state') ?? undefined;
  if (state !== undefined && !STATES.includes(state)) {
    return jsonError(400, 'INVALID_REQUEST', `state must be one of ${STATES.join(', ')}`);
  }
  const limitText = url.searchParams.get('limit') ?? '100';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_LIST) {
    return jsonError(400, 'INVALID_REQUEST', `limit must be an integer from 1 to ${MAX_LIST}`);
  }
  const records = await ctx.config.desk.list({ state: state as ApprovalState | undefined, limit });
  return jsonResponse({ requests: records.map((record) => pageRecord(ctx.config.desk, record)) });
}

/** `GET {base}/api/requests/:id`. */
export async function readRequest(ctx: PageContext, id: string): Promise<Response> {
  const record = await ctx.config.desk.get(id);
  if (record === undefined) return jsonError(404, 'APPROVAL_NOT_FOUND', `No approval request ${id}`);
  return jsonResponse({ request: pageRecord(ctx.config.desk, record) });
}

function refusalText(code: string, current: ApprovalRecord | undefined): string {
  if (current === undefined) return 'This approval request no longer exists';
  if (code === 'APPROVAL_EXPIRED') return 'This request expired before anyone decided it';
  const by = current.decided_by === undefined ? '' : ` by ${current.decided_by}`;
  return `This request was already ${current.state}${by}`;
}

/** `POST {base}/api/requests/:id/decision`: decided by the signed-in principal. */
export async function decideRequest(ctx: PageContext, request: Request, asker: Asker, id: string): Promise<Response> {
  if (mediaType(request) !== 'application/json') {
    return jsonError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the decision as application/json');
  }
  const text = await boundedText(request);
  if (text === undefined) return jsonError(413, 'PAYLOAD_TOO_LARGE', 'The decision is too large');
  const parsed = parseDecision(text);
  if ('problem' in parsed) return jsonError(400, 'INVALID_REQUEST', parsed.problem);
  const { desk } = ctx.config;
  const { approve, reason } = parsed.decision;
  try {
    const record = await desk.decide(id, { approve, by: asker.caller.principal, reason });
    return jsonResponse({ request: pageRecord(desk, record) });
  } catch (error) {
    const status = ExtensionError.isInstance(error) ? REFUSALS[error.code] : undefined;
    if (!ExtensionError.isInstance(error) || status === undefined) throw error;
    const current = await desk.get(id);
    const extra = current === undefined ? {} : { request: pageRecord(desk, current) };
    return jsonError(status, error.code, refusalText(error.code, current), extra);
  }
}
