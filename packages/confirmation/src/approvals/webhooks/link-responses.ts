/**
 * The answers a decision link gives, in HTML for a person or in JSON for a
 * program (`Accept: application/json`): each refusal with its own status,
 * code and words, and the headers every answer carries (no caching, no
 * referrer, no framing, nothing loaded).
 */
import type { JsonValue } from '@ext/core/kit';
import { refusalPage } from './link-pages.js';

/** Why a link was not followed. */
export interface LinkRefusal {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly message: string;
}

/** The headers of every answer: the page loads nothing, is never framed, cached, or named in a Referer. */
export const LINK_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-robots-tag': 'noindex',
};

export const REFUSALS = {
  notFound: {
    status: 404,
    code: 'APPROVAL_LINK_NOT_FOUND',
    title: 'Not found',
    message: 'This is not a decision link.',
  },
  invalid: {
    status: 403,
    code: 'APPROVAL_LINK_INVALID',
    title: 'Invalid link',
    message: 'This decision link is not valid: it was changed, or it was not issued here. Nothing was decided.',
  },
  expired: {
    status: 410,
    code: 'APPROVAL_LINK_EXPIRED',
    title: 'Link expired',
    message: 'This decision link has expired. Nothing was decided.',
  },
  link_used: {
    status: 409,
    code: 'APPROVAL_LINK_USED',
    title: 'Link already used',
    message: 'This decision link was already used: a link decides once. Nothing more was decided.',
  },
  request_used: {
    status: 409,
    code: 'APPROVAL_LINK_USED',
    title: 'Already decided by link',
    message: 'The other decision link of this request was already used. Nothing more was decided.',
  },
  method: {
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    title: 'Method not allowed',
    message: 'Open a decision link (GET), then submit its form (POST).',
  },
  tooLarge: {
    status: 413,
    code: 'APPROVAL_LINK_BODY_TOO_LARGE',
    title: 'Too large',
    message: 'The reason sent is too long. Nothing was decided.',
  },
  badBody: {
    status: 400,
    code: 'APPROVAL_LINK_BAD_BODY',
    title: 'Bad request',
    message: 'Send the reason as a form field or as JSON `{ "reason": "..." }`. Nothing was decided.',
  },
  noDesk: {
    status: 503,
    code: 'APPROVAL_DESK_UNAVAILABLE',
    title: 'Not available',
    message: 'Decision links are not connected to an approval desk on this server yet. Nothing was decided.',
  },
} as const satisfies Record<string, LinkRefusal>;

/** The request is not known (never made, or gone after its retention). */
export function unknownRequest(id: string): LinkRefusal {
  return {
    status: 404,
    code: 'APPROVAL_NOT_FOUND',
    title: 'Request not found',
    message: `There is no approval request ${id}. Nothing was decided.`,
  };
}

/** The request was decided already (elsewhere, or by its expiry). */
export function settledRequest(id: string, state: string): LinkRefusal {
  return state === 'expired'
    ? {
        status: 409,
        code: 'APPROVAL_EXPIRED',
        title: 'Request expired',
        message: `Approval request ${id} expired before anyone decided it. Nothing was decided.`,
      }
    : {
        status: 409,
        code: 'APPROVAL_ALREADY_DECIDED',
        title: `Already ${state}`,
        message: `Approval request ${id} was already ${state}. Nothing more was decided.`,
      };
}

/** An HTML answer. */
export function htmlResponse(status: number, html: string): Response {
  return new Response(html, {
    status,
    headers: { ...LINK_RESPONSE_HEADERS, 'content-type': 'text/html; charset=utf-8' },
  });
}

/** A JSON answer. */
export function jsonResponse(status: number, body: JsonValue): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...LINK_RESPONSE_HEADERS, 'content-type': 'application/json' },
  });
}

/** A refusal, as the caller asked for it. */
export function refusalResponse(refusal: LinkRefusal, json: boolean): Response {
  const response = json
    ? jsonResponse(refusal.status, { error: { code: refusal.code, message: refusal.message } })
    : htmlResponse(refusal.status, refusalPage(refusal.title, refusal.message));
  if (refusal.status === 405) response.headers.set('allow', 'GET, HEAD, POST');
  return response;
}
