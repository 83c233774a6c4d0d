/**
 * Reading a request body in both SDK lines' HTTP handlers: once, bounded,
 * and as strict UTF-8, before the SDK sees it. The SDK decodes bodies with
 * replacement characters, so bytes that are not UTF-8 would otherwise be
 * silently changed and stored; here they are refused as a parse error.
 */

/** The SDK's default bound on a request body: 4 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

export type BodyRead =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'not-utf8' };

/** Reads a body as UTF-8 text, stopping as soon as it grows past `maxBytes` or a byte sequence is not UTF-8. */
export async function readBody(request: Request, maxBytes: number): Promise<BodyRead> {
  if (Number(request.headers.get('content-length')) > maxBytes) return { kind: 'too-large' };
  if (request.body === null) return { kind: 'text', text: '' };
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  // `fatal`: a malformed sequence throws instead of becoming U+FFFD.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { kind: 'too-large' };
      }
      const decoded = decodeChunk(decoder, value);
      if (decoded === undefined) {
        await reader.cancel().catch(() => undefined);
        return { kind: 'not-utf8' };
      }
      parts.push(decoded);
    }
  } catch {
    return { kind: 'unreadable' };
  } finally {
    reader.releaseLock();
  }
  const rest = decodeChunk(decoder);
  if (rest === undefined) return { kind: 'not-utf8' };
  parts.push(rest);
  return { kind: 'text', text: parts.join('') };
}

/** One step of a streaming decode (no chunk: the end); `undefined` when the bytes are not UTF-8. */
function decodeChunk(decoder: InstanceType<typeof TextDecoder>, chunk?: Uint8Array): string | undefined {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    return undefined;
  }
}

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });
}

export function isJsonPost(request: Request): boolean {
  return (
    request.method.toUpperCase() === 'POST' &&
    /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(request.headers.get('content-type') ?? '')
  );
}

/**
 * A JSON POST's body read and parsed once (CORE-26, CORE-33): `parsed` when
 * it is JSON, `text` when it is not (the SDK answers that itself), or the
 * `Response` that refuses it (too large, unreadable, not UTF-8).
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
): Promise<{ readonly parsed: unknown } | { readonly text: string } | Response> {
  const read = await readBody(request, maxBytes);
  if (read.kind === 'too-large')
    return jsonRpcError(413, -32000, `Payload Too Large: Request body must not exceed ${String(maxBytes)} bytes`);
  if (read.kind === 'unreadable') return jsonRpcError(400, -32700, 'Parse error: the request body could not be read');
  if (read.kind === 'not-utf8') return jsonRpcError(400, -32700, 'Parse error: the request body is not valid UTF-8');
  if (read.text === '') return { text: read.text };
  try {
    return { parsed: JSON.parse(read.text) as unknown };
  } catch {
    return { text: read.text };
  }
}

/** The ids of the JSON-RPC requests (not notifications, not responses) in a parsed body or batch. */
export function requestIdsOf(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const message of Array.isArray(body) ? (body as unknown[]) : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids;
}

/** Whether a parsed body (a message or a batch) holds an `initialize` request: one that opens a legacy-era session. */
export function opensSession(body: unknown): boolean {
  return (Array.isArray(body) ? (body as unknown[]) : [body]).some(
    (message) =>
      typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize',
  );
}
