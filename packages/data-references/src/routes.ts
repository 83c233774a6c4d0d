/** The origin's HTTP routes: downloads (`GET`/`HEAD <base>/<ref_id>`), uploads (`PUT <base>/uploads/<id>`), and its own server. */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { contentRange, isRefId, parseRange, type RangeDecision } from './logic.js';
import { currentBase, DEFAULT_PATH, setBase, type OriginState } from './origin-options.js';
import { load } from './reference-store.js';
import { checkSignedRequest } from './signing.js';
import { readable } from './sources.js';
import { spool } from './spool.js';
import { isPrematureClose, Meter, TooLarge } from './streams.js';
import { claimUpload, markUsed, UPLOADS } from './uploads.js';

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(`${text}\n`);
}

async function serveDownload(
  state: OriginState,
  req: IncomingMessage,
  res: ServerResponse,
  refId: string,
  query: URLSearchParams,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    plain(res, 405, 'Method not allowed', { allow: 'GET, HEAD' });
    return;
  }
  const check = checkSignedRequest(state.keys, 'download', refId, query, state.now());
  if (!check.ok) {
    plain(res, 403, check.reason === 'expired' ? 'Forbidden: the URL has expired' : 'Forbidden: invalid signature');
    return;
  }
  const record = await load(state, refId);
  if (record === undefined) {
    plain(res, 404, 'Not found');
    return;
  }
  const size = record.size_bytes;
  const etag = `"sha256-${record.sha256}"`;
  const ifRange = req.headers['if-range'];
  const decision: RangeDecision =
    ifRange !== undefined && ifRange !== etag ? { kind: 'full' } : parseRange(req.headers.range, size);
  const headers: Record<string, string> = {
    'content-type': record.mime_type,
    'accept-ranges': 'bytes',
    etag,
    'repr-digest': `sha-256=:${Buffer.from(record.sha256, 'hex').toString('base64')}:`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
  if (decision.kind === 'unsatisfiable') {
    plain(res, 416, 'Range not satisfiable', {
      'content-range': contentRange(decision, size) ?? `bytes */${String(size)}`,
    });
    return;
  }
  const start = decision.kind === 'partial' ? decision.start : 0;
  const end = decision.kind === 'partial' ? decision.end : size - 1;
  const stream = await readable(state, record, start, end);
  if (stream === undefined) {
    state.logger.warn('data-references: the bytes of a reference are not available in this process', {
      ref_id: refId,
      source: record.source,
    });
    plain(res, 404, 'Not found');
    return;
  }
  headers['content-length'] = String(Math.max(0, end - start + 1));
  const range = contentRange(decision, size);
  if (range !== undefined) headers['content-range'] = range;
  res.writeHead(decision.kind === 'partial' ? 206 : 200, headers);
  if (req.method === 'HEAD') {
    stream.destroy();
    res.end();
    return;
  }
  // pipeline: backpressure from the socket, and the source is closed when the client goes away.
  await pipeline(stream, res);
}

async function serveUpload(
  state: OriginState,
  req: IncomingMessage,
  res: ServerResponse,
  uploadId: string,
  query: URLSearchParams,
): Promise<void> {
  const uploads = state.uploads;
  if (uploads === undefined) {
    plain(res, 404, 'Not found');
    return;
  }
  if (req.method !== 'PUT') {
    plain(res, 405, 'Method not allowed', { allow: 'PUT' });
    return;
  }
  const check = checkSignedRequest(state.keys, 'upload', uploadId, query, state.now());
  if (!check.ok) {
    plain(
      res,
      403,
      check.reason === 'expired' ? 'Forbidden: the upload URL has expired' : 'Forbidden: invalid signature',
      { connection: 'close' },
    );
    return;
  }
  // Single use: only the request that moves the ticket from pending to receiving may write.
  const ticket = await claimUpload(state, uploads, uploadId);
  if (ticket === 'unknown') {
    plain(res, 404, 'Not found: unknown upload', { connection: 'close' });
    return;
  }
  if (ticket === 'used') {
    plain(res, 409, 'Conflict: this upload URL was already used', { connection: 'close' });
    return;
  }
  const used = (): Promise<void> => markUsed(state, uploadId, ticket);
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  if (declared !== undefined && declared > ticket.max_size_bytes) {
    await used();
    plain(res, 413, `Payload too large: at most ${String(ticket.max_size_bytes)} bytes`, { connection: 'close' });
    return;
  }
  const writer = await spool(state, {
    mimeType: ticket.mime_type,
    principal: ticket.principal,
    ttlSeconds: uploads.referenceTtlSeconds,
  });
  const meter = new Meter(ticket.max_size_bytes);
  // Not pipeline(req, ...): on a refusal the request must stay open long enough to carry the 413 back.
  req.once('close', () => {
    if (!req.complete) meter.destroy(new Error('the client went away during the upload'));
  });
  req.pipe(meter);
  try {
    await pipeline(meter, writer.writable);
  } catch (error) {
    req.unpipe(meter);
    await writer.abort();
    await used();
    if (error instanceof TooLarge) {
      plain(res, 413, `Payload too large: at most ${String(ticket.max_size_bytes)} bytes`, { connection: 'close' });
      return;
    }
    throw error;
  }
  const reference = await writer.commit({ sizeBytes: meter.size, sha256: meter.digest() });
  await used();
  const body = JSON.stringify(reference);
  res.writeHead(201, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  });
  res.end(body);
}

/**
 * Serves a request whose path is under the base URL's path and returns
 * `true`; returns `false`, touching nothing, for any other path.
 */
export function handle(state: OriginState, req: IncomingMessage, res: ServerResponse): boolean {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://origin.invalid');
  } catch {
    return false;
  }
  const basePath = state.basePath;
  if (!url.pathname.startsWith(`${basePath}/`)) return false;
  const segments = url.pathname.slice(basePath.length + 1).split('/');
  let served: Promise<void>;
  if (segments.length === 1 && isRefId(segments[0]))
    served = serveDownload(state, req, res, segments[0], url.searchParams);
  else if (segments.length === 2 && segments[0] === UPLOADS && isRefId(segments[1]))
    served = serveUpload(state, req, res, segments[1], url.searchParams);
  else {
    plain(res, 404, 'Not found');
    return true;
  }
  served.catch((error: unknown) => {
    if (isPrematureClose(error)) {
      state.logger.debug?.('data-references: the client went away during a transfer', { path: url.pathname });
      return;
    }
    state.logger.warn('data-references: serving a request failed', { error: String(error) });
    if (!res.headersSent) plain(res, 500, 'Internal error');
    else res.destroy();
  });
  return true;
}

/** Starts a dedicated HTTP server for {@link handle}; sets the base URL when none was given, and resolves to it. */
export async function listen(state: OriginState, options: { port?: number; host?: string } = {}): Promise<string> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    if (!handle(state, req, res)) plain(res, 404, 'Not found');
  });
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  state.servers.push(server);
  if (state.baseUrl === undefined) {
    const { port } = server.address() as AddressInfo;
    setBase(state, `http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}${DEFAULT_PATH}`);
  }
  return currentBase(state);
}

/** Stops the servers `listen` started and the expiry timers. */
export async function close(state: OriginState): Promise<void> {
  for (const timer of state.timers) clearTimeout(timer);
  state.timers.clear();
  await Promise.all(
    state.servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
}
