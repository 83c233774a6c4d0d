/**
 * The page's answers: HTML and JSON with the security headers every one of
 * them carries (no framing, no inline code, no caching, no referrer), and
 * the redirects between the page and its sign-in.
 */
import type { Html } from './html.js';

/** Only the page's own script and style run; nothing frames it; forms post only to it. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

function withSecurity(extra: Record<string, string> | undefined, contentType?: string): Headers {
  const headers = new Headers(extra);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  if (contentType !== undefined) headers.set('content-type', contentType);
  return headers;
}

/** An HTML page. */
export function htmlResponse(page: Html, status = 200, headers?: Record<string, string>): Response {
  return new Response(page.markup, { status, headers: withSecurity(headers, 'text/html; charset=utf-8') });
}

/** A JSON answer of the API. */
export function jsonResponse(value: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(value), { status, headers: withSecurity(headers, 'application/json') });
}

/** The API's refusal: `{ error: { code, message } }`, with anything else the caller can use beside it. */
export function jsonError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer' } : {};
  return jsonResponse({ error: { code, message }, ...extra }, status, headers);
}

/** `303 See Other` to `location` (a path on this server). */
export function redirect(location: string, headers?: Record<string, string>): Response {
  const out = withSecurity(headers);
  out.set('location', location);
  return new Response(null, { status: 303, headers: out });
}

/** A `text/event-stream` answer. */
export function eventStreamResponse(body: ReadableStream<Uint8Array>): Response {
  const headers = withSecurity({ 'x-accel-buffering': 'no' }, 'text/event-stream; charset=utf-8');
  return new Response(body, { status: 200, headers });
}
