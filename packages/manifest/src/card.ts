/** The static server card: the MCP Server Card draft carrying the manifest, served over HTTP. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalHash, readServerIdentity } from '@ext/core/kit';
import { ConfigurationError, type ComposedServer, type ServerIdentity } from '@ext/core';
import { httpUrl } from './http-url.js';
import { MANIFEST_ID, MANIFEST_PACKAGE, type ServerCard } from './schema.js';
import { getServiceManifest } from './serving.js';

/** The media type of a server card (MCP Server Card draft); plain `application/json` is served unless asked for it. */
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';

/** The site-wide location of the card (MAN-16). */
export const WELL_KNOWN_SERVER_CARD_PATH = '/.well-known/mcp/server-card.json';

export interface ServerCardOptions {
  /** The composition the MCP server runs, `manifestServer()` among it (make one instance first, so its tools are registered). */
  readonly composed: ComposedServer;
  /** The identity given to the SDK server: `{ name, version, title?, description?, websiteUrl? }`. */
  readonly serverInfo: Partial<ServerIdentity> & { readonly name: string; readonly version: string };
  /** Path of the MCP endpoint; the card is served at `<mcpPath>/server-card`. Default `/mcp`. */
  readonly mcpPath?: string | undefined;
  /** Also serve the card at `/.well-known/mcp/server-card.json`. Default `true`. */
  readonly wellKnown?: boolean | undefined;
  /** Absolute URL of the MCP endpoint, listed in `remotes`; without it the card has no `remotes` (never guessed from `Host`). */
  readonly endpointUrl?: string | undefined;
  /** Protocol revisions the endpoint serves, listed in `remotes`. */
  readonly supportedProtocolVersions?: readonly string[] | undefined;
  /**
   * The endpoint serves unidentified callers as one shared principal (core's
   * `anonymous: 'shared'`); the card's manifest then lists the auth method
   * `none`. Default `false`.
   */
  readonly sharedCallers?: boolean | undefined;
}

/** A framework-neutral answer: status, headers and body (absent for 304, HEAD and OPTIONS). */
export interface ServerCardResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
}

export interface ServerCardHandler {
  /** The paths the card is served at. */
  readonly paths: readonly string[];
  /** The card as it would be served now. */
  card(): ServerCard;
  /** Answers one request; `undefined` when its path is not a card path (route it elsewhere). */
  respond(request: {
    method: string;
    path: string;
    headers: Readonly<Record<string, string | undefined>>;
  }): ServerCardResponse | undefined;
  /** Fetch-style: a `Response` for a card path, 404 for any other path. */
  fetch(request: Request): Promise<Response>;
  /** Node `http` style: answers and returns `true` for a card path, returns `false` (untouched) otherwise. */
  handleNode(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
}

const ALLOWED = 'GET, HEAD, OPTIONS';
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': ALLOWED,
  'access-control-allow-headers': 'Content-Type, If-None-Match',
};

function normalizePath(path: string): string {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `createServerCardHandler: mcpPath must start with "/", got ${JSON.stringify(path)}`,
    );
  }
  return path.replace(/\/+$/, '');
}

/** Whether an `If-None-Match` header names this etag (or `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** The options checked: the composition and identity, the endpoint URL (if given) and the paths served. */
interface CardSetup {
  readonly composed: ComposedServer;
  readonly identity: ServerIdentity;
  readonly endpointUrl: string | undefined;
  readonly paths: readonly string[];
}

function resolveOptions(options: ServerCardOptions): CardSetup {
  const { composed } = options;
  if (typeof composed !== 'object' || typeof composed.decorateTool !== 'function') {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'createServerCardHandler: composed must be a ComposedServer (composeServer([...]))',
    );
  }
  if (!composed.extensions.some((extension) => extension.name === MANIFEST_PACKAGE)) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      `createServerCardHandler: compose manifestServer() from ${MANIFEST_PACKAGE} first`,
    );
  }
  const identity = readServerIdentity(options.serverInfo);
  const endpointUrl = options.endpointUrl === undefined ? undefined : httpUrl(options.endpointUrl);
  if (options.endpointUrl !== undefined && endpointUrl === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `createServerCardHandler: endpointUrl must be an absolute http(s) URL, got ${JSON.stringify(options.endpointUrl)}`,
    );
  }
  const mcpPath = normalizePath(options.mcpPath ?? '/mcp');
  const paths = [`${mcpPath}/server-card`, ...(options.wellKnown === false ? [] : [WELL_KNOWN_SERVER_CARD_PATH])];
  return { composed, identity, endpointUrl, paths };
}

/** The card as served now, its etag, and how long it may be cached. */
interface CurrentCard {
  readonly card: ServerCard;
  readonly etag: string;
  readonly ttlSeconds: number;
}

function currentCard(setup: CardSetup, options: ServerCardOptions): CurrentCard {
  const { composed, identity, endpointUrl } = setup;
  const { manifest, ttlSeconds } = getServiceManifest(
    { composed, identity },
    undefined,
    options.sharedCallers === true,
  );
  const card: ServerCard = {
    name: identity.name,
    version: identity.version,
    description: identity.description ?? manifest.server.description ?? identity.title ?? identity.name,
    _meta: { [MANIFEST_ID]: manifest },
  };
  if (identity.title !== undefined) card.title = identity.title;
  const website = httpUrl(identity.websiteUrl);
  if (website !== undefined) card.websiteUrl = website;
  if (endpointUrl !== undefined) {
    const remote: NonNullable<ServerCard['remotes']>[number] = { type: 'streamable-http', url: endpointUrl };
    if (options.supportedProtocolVersions !== undefined)
      remote.supportedProtocolVersions = [...options.supportedProtocolVersions];
    card.remotes = [remote];
  }
  return { card, etag: `"${canonicalHash(card)}"`, ttlSeconds };
}

/** The answer to one request for a card path (`current` is read only for GET and HEAD). */
function answerRequest(
  request: Parameters<ServerCardHandler['respond']>[0],
  current: () => CurrentCard,
): ServerCardResponse {
  const method = request.method.toUpperCase();
  if (method === 'OPTIONS') return { status: 204, headers: { ...CORS, allow: ALLOWED } };
  if (method !== 'GET' && method !== 'HEAD') {
    return {
      status: 405,
      headers: { ...CORS, allow: ALLOWED, 'content-type': 'text/plain; charset=utf-8' },
      body: 'Method Not Allowed',
    };
  }
  const { card, etag, ttlSeconds } = current();
  const accept = request.headers.accept ?? '';
  const headers = {
    ...CORS,
    'content-type': accept.includes(SERVER_CARD_MEDIA_TYPE)
      ? SERVER_CARD_MEDIA_TYPE
      : 'application/json; charset=utf-8',
    'cache-control': `public, max-age=${String(ttlSeconds)}`,
    etag,
    vary: 'Accept',
    'x-content-type-options': 'nosniff',
  };
  if (matches(request.headers['if-none-match'], etag)) return { status: 304, headers };
  return { status: 200, headers, body: method === 'HEAD' ? undefined : JSON.stringify(card) };
}

/**
 * Serves the static server card over HTTP beside the MCP endpoint:
 * `GET <mcpPath>/server-card` and `GET /.well-known/mcp/server-card.json`,
 * the service manifest under `_meta["io.github.mcp-ext/manifest"]`, with an
 * `ETag`, `304` on `If-None-Match`, `Cache-Control: max-age=<ttl_seconds>`
 * and open CORS (the card is public metadata).
 */
export function createServerCardHandler(options: ServerCardOptions): ServerCardHandler {
  const setup = resolveOptions(options);
  const { paths } = setup;
  const current = (): CurrentCard => currentCard(setup, options);
  const respond: ServerCardHandler['respond'] = (request) =>
    paths.includes(request.path) ? answerRequest(request, current) : undefined;

  return {
    paths,
    card: () => current().card,
    respond,
    fetch(request) {
      const answer = respond({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: {
          accept: request.headers.get('accept') ?? undefined,
          'if-none-match': request.headers.get('if-none-match') ?? undefined,
        },
      });
      if (answer === undefined) return Promise.resolve(new Response('Not Found', { status: 404 }));
      return Promise.resolve(new Response(answer.body ?? null, { status: answer.status, headers: answer.headers }));
    },
    handleNode(request, response) {
      const header = (name: string): string | undefined => {
        const value = request.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      const answer = respond({
        method: request.method ?? 'GET',
        // Only the path matters; the base is never read (the Host header is not trusted).
        path: new URL(request.url ?? '/', 'http://card.invalid').pathname,
        headers: { accept: header('accept'), 'if-none-match': header('if-none-match') },
      });
      if (answer === undefined) return Promise.resolve(false);
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
      return Promise.resolve(true);
    },
  };
}
