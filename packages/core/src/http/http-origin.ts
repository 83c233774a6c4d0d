/**
 * Where a request comes from (SERVE-6): the `Host` and `Origin` checks that
 * stop DNS rebinding. A page on another site can make a browser send
 * requests to a server on this machine under a name its attacker controls;
 * a server that answers only to the names it is known by, and only to
 * pages of its own origin, is out of that page's reach. Pure: the caller
 * says which local address and port the request arrived on.
 */
import { ConfigurationError } from '../contract/errors.js';
import { jsonRpcError } from './http-body.js';

/** Which `Host` names and page origins an HTTP endpoint answers. */
export interface RequestSourceOptions {
  /**
   * The `Host` header values served: `name` (any port) or `name:port`,
   * compared as sent, ignoring case (`127.1` is not `127.0.0.1`). Default:
   * on a connection to a loopback address, `localhost`, `127.0.0.1` and
   * `[::1]` at the port it arrived on; on any other, every name (put
   * identity in front: a network address must identify its callers).
   */
  readonly allowedHosts?: readonly string[] | undefined;
  /**
   * Page origins allowed beside the server's own (`https://app.example.com`):
   * a browser request whose `Origin` is neither `http(s)://` an allowed host
   * nor listed here is refused, as is `Origin: null`. A request without
   * `Origin` (any non-browser client) is not checked.
   */
  readonly allowedOrigins?: readonly string[] | undefined;
}

/** The address and port a connection arrived on (`req.socket.localAddress`, `localPort`). */
export interface LocalEndpoint {
  readonly address: string;
  readonly port: number;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether an IP address (or `localhost`) only this machine can reach. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return /^127(\.\d{1,3}){3}$/.test(v4);
}

const HOST_ENTRY = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
const ORIGIN_ENTRY = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

function checkedList(list: readonly string[] | undefined, name: string, entry: RegExp, what: string) {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw new ConfigurationError('INVALID_OPTION', `${name} must be an array of ${what}`);
  return list.map((value: unknown, index) => {
    const lower = typeof value === 'string' ? value.toLowerCase() : undefined;
    if (lower === undefined || !entry.test(lower))
      throw new ConfigurationError('INVALID_OPTION', `${name}[${String(index)}] must be ${what}, got ${String(value)}`);
    return lower;
  });
}

/** The options, checked once: an entry that could never match a header is a mistake said at start-up. */
export function resolveRequestSource(options: RequestSourceOptions, where: string): RequestSourceOptions {
  return {
    allowedHosts: checkedList(
      options.allowedHosts,
      `${where}: allowedHosts`,
      HOST_ENTRY,
      'a host name, optionally with :port',
    ),
    allowedOrigins: checkedList(
      options.allowedOrigins,
      `${where}: allowedOrigins`,
      ORIGIN_ENTRY,
      'an origin such as https://app.example.com (scheme, host, optional port; no path)',
    ),
  };
}

/** The names a connection to `local` answers to by default; `undefined`: any. */
function defaultHosts(local: LocalEndpoint): readonly string[] | undefined {
  if (!isLoopbackAddress(local.address)) return undefined;
  const port = String(local.port);
  const named = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
  // A browser leaves the default port out of Host and Origin.
  return local.port === 80 ? [...named, ...LOOPBACK_NAMES] : named;
}

/** An entry with a port matches that authority; one without matches the name on any port. */
function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => entry === host || (hostName(entry) === entry && hostName(host) === entry));
}

/** `host` without its port (`[::1]:80` → `[::1]`). */
function hostName(host: string): string {
  const cut = host.lastIndexOf(':');
  return cut > host.lastIndexOf(']') ? host.slice(0, cut) : host;
}

function forbidden(reason: string): Response {
  return jsonRpcError(403, -32000, `Forbidden: ${reason}`);
}

/**
 * The `403` refusing a request whose `Host` this server does not answer to,
 * or whose `Origin` is a page elsewhere (SERVE-6); `undefined` when it may
 * be served. Runs before anything else reads the request.
 */
export function refuseForeignSource(
  headers: { readonly host: string | undefined; readonly origin: string | undefined },
  local: LocalEndpoint,
  options: RequestSourceOptions,
): Response | undefined {
  const hosts = options.allowedHosts ?? defaultHosts(local);
  const host = headers.host?.toLowerCase();
  if (hosts !== undefined && (host === undefined || !hostAllowed(host, hosts)))
    return forbidden('this server does not answer to that Host name');
  if (headers.origin === undefined) return undefined;
  const origin = headers.origin.toLowerCase();
  const own = hosts ?? (host === undefined ? [] : [host]);
  const match = /^https?:\/\/(.+)$/.exec(origin);
  if (match?.[1] !== undefined && ORIGIN_ENTRY.test(origin) && hostAllowed(match[1], own)) return undefined;
  if (options.allowedOrigins?.includes(origin) === true) return undefined;
  return forbidden('requests from pages of that origin are not accepted');
}
