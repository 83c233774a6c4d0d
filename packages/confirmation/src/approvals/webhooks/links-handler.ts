/**
 * Serves the decision links. `GET` checks the link and shows what it would
 * decide, deciding nothing (link unfurlers and mail scanners open links);
 * `POST` checks it, spends it (single use, across instances), then decides
 * the request on the desk as `signed link`. Each refusal has its own
 * status: 403 not a link we signed, 410 expired, 409 used or decided
 * already, 404 unknown request.
 */
import { ExtensionError, type Store } from '@ext/core';
import type { ApprovalDesk } from '../desk.js';
import { approvalSummary } from '../summary.js';
import { MAX_REASON_LENGTH, type ApprovalRecord } from '../record.js';
import { confirmationPage, decidedPage } from './link-pages.js';
import {
  htmlResponse,
  jsonResponse,
  refusalResponse,
  REFUSALS,
  settledRequest,
  unknownRequest,
  type LinkRefusal,
} from './link-responses.js';
import { verifyLinkToken, type LinkClaims } from './link-token.js';
import { consumeLink, linkUseRefusal } from './link-uses.js';

/** Who a link decision is recorded as. */
export const LINK_DECIDER = 'signed link';
/** Largest request body read (a form with a reason); a larger one is refused unread. */
const MAX_BODY_BYTES = 16 * 1024;

/** What the handler needs. */
export interface LinksHandlerConfig {
  /** The pathname of `linkBaseUrl`, without a trailing slash. */
  readonly basePath: string;
  readonly linkKey: Uint8Array;
  readonly store: Store;
  readonly keyPrefix: string;
  readonly now: () => number;
  /** The desk, once known. */
  readonly desk: () => ApprovalDesk | undefined;
}

/** The token of a request under `basePath`; `null` for a path under it that is no link; `undefined` when not ours. */
function tokenOf(pathname: string, basePath: string): string | null | undefined {
  if (!pathname.startsWith(`${basePath}/`)) return undefined;
  const token = pathname.slice(basePath.length + 1);
  return token === '' || token.includes('/') ? null : token;
}

function wantsJson(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

/** The first `limit` bytes of the body, or `undefined` when it is longer. */
async function readBody(request: Request, limit: number): Promise<string | undefined> {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const chunk: unknown = next.value;
    if (!(chunk instanceof Uint8Array)) throw new TypeError('A request body chunk was not bytes');
    size += chunk.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reasonFrom(text: string, contentType: string): string | undefined | LinkRefusal {
  if (text.trim() === '') return undefined;
  let reason: unknown;
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    reason = new URLSearchParams(text).get('reason') ?? undefined;
  } else if (contentType.startsWith('application/json')) {
    try {
      reason = (JSON.parse(text) as { reason?: unknown } | null)?.reason;
    } catch {
      return REFUSALS.badBody; // told to the sender, not swallowed
    }
  } else return REFUSALS.badBody;
  if (reason === undefined || reason === null) return undefined;
  if (typeof reason !== 'string') return REFUSALS.badBody;
  const trimmed = reason.trim().slice(0, MAX_REASON_LENGTH);
  return trimmed === '' ? undefined : trimmed;
}

/** The reason a POST gave, or the refusal of its body. */
async function postedReason(request: Request): Promise<string | undefined | LinkRefusal> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) return REFUSALS.tooLarge;
  const text = await readBody(request, MAX_BODY_BYTES);
  if (text === undefined) return REFUSALS.tooLarge;
  return reasonFrom(text, (request.headers.get('content-type') ?? '').toLowerCase());
}

function isRefusal(value: unknown): value is LinkRefusal {
  return typeof value === 'object' && value !== null && 'status' in value;
}

/** The refusal for a desk error that is one (unknown or settled request); `undefined` for any other error. */
function deskRefusal(error: unknown, id: string): LinkRefusal | undefined {
  if (!ExtensionError.isInstance(error)) return undefined;
  if (error.code === 'APPROVAL_NOT_FOUND') return unknownRequest(id);
  if (error.code !== 'APPROVAL_ALREADY_DECIDED' && error.code !== 'APPROVAL_EXPIRED') return undefined;
  const state = error.details?.state;
  return settledRequest(
    id,
    typeof state === 'string' ? state : error.code === 'APPROVAL_EXPIRED' ? 'expired' : 'decided',
  );
}

/** The pending request a GET would decide, or why there is none. */
async function pendingRecord(desk: ApprovalDesk, id: string): Promise<ApprovalRecord | LinkRefusal> {
  const record = await desk.get(id);
  if (record === undefined) return unknownRequest(id);
  return record.state === 'pending' ? record : settledRequest(id, record.state);
}

/** Creates the handler: a fetch-shaped function answering `undefined` for any path not under `basePath`. */
export function linksHandler(config: LinksHandlerConfig): (request: Request) => Promise<Response | undefined> {
  /** The pending request the link would decide, or the refusal: this link or its request spent, or the request settled. */
  const usable = async (claims: LinkClaims, desk: ApprovalDesk): Promise<ApprovalRecord | LinkRefusal> => {
    const used = await linkUseRefusal(config.store, config.keyPrefix, claims);
    return used === undefined ? pendingRecord(desk, claims.id) : REFUSALS[used];
  };

  const show = async (claims: LinkClaims, desk: ApprovalDesk, json: boolean): Promise<Response> => {
    const record = await usable(claims, desk);
    if (isRefusal(record)) return refusalResponse(record, json);
    if (!json) return htmlResponse(200, confirmationPage(record, claims.decision));
    const link = { id: claims.id, decision: claims.decision, expires_at: new Date(claims.exp * 1000).toISOString() };
    return jsonResponse(200, { link, approval: approvalSummary(record, undefined) });
  };

  const decide = async (request: Request, claims: LinkClaims, desk: ApprovalDesk, json: boolean): Promise<Response> => {
    const reason = await postedReason(request);
    if (isRefusal(reason)) return refusalResponse(reason, json);
    // Checked before spending the link, so a link to a settled request says so and stays unspent.
    const pending = await usable(claims, desk);
    if (isRefusal(pending)) return refusalResponse(pending, json);
    const used = await consumeLink(config.store, config.keyPrefix, claims, config.now());
    if (used !== undefined) return refusalResponse(REFUSALS[used], json);
    let record: ApprovalRecord;
    try {
      record = await desk.decide(claims.id, { approve: claims.decision === 'approve', by: LINK_DECIDER, reason });
    } catch (error) {
      const refusal = deskRefusal(error, claims.id);
      if (refusal === undefined) throw error;
      return refusalResponse(refusal, json);
    }
    if (json) return jsonResponse(200, { decided: { id: record.id, state: record.state } });
    return htmlResponse(200, decidedPage(record));
  };

  const answer = async (request: Request, token: string, json: boolean): Promise<Response> => {
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return refusalResponse(REFUSALS.method, json);
    const check = verifyLinkToken(token, config.linkKey, Math.floor(config.now() / 1000));
    if (!check.ok) return refusalResponse(REFUSALS[check.refusal], json);
    const desk = config.desk();
    if (desk === undefined) return refusalResponse(REFUSALS.noDesk, json);
    if (method === 'POST') return decide(request, check.claims, desk, json);
    const response = await show(check.claims, desk, json);
    return method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response;
  };

  return async (request) => {
    const token = tokenOf(new URL(request.url).pathname, config.basePath);
    if (token === undefined) return undefined;
    const json = wantsJson(request);
    if (token === null) return refusalResponse(REFUSALS.notFound, json);
    return answer(request, token, json);
  };
}
