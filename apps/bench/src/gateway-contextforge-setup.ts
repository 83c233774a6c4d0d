/**
 * ContextForge (`mcp-contextforge-gateway` from PyPI) as the gateway
 * benchmark sets it up, as data: the pinned release, the Python it needs,
 * the environment both of its processes read, their arguments, and the
 * requests that register the stdio bridge and expose its tools as a
 * virtual server. No I/O.
 */
import type { StdioCommand } from './gateway-setup.js';

/** The release measured; its virtual environment is cached under this version. */
export const CONTEXTFORGE_VERSION = '1.1.0';
export const CONTEXTFORGE_REQUIREMENT = `mcp-contextforge-gateway==${CONTEXTFORGE_VERSION}`;

/** The interpreters tried, in order, for the virtual environment: the release needs Python 3.12 or later. */
export const PYTHON_CANDIDATES: readonly string[] = ['python3.13', 'python3.12'];
export const PYTHON_MINIMUM = { major: 3, minor: 12 } as const;

/** What the candidate prints when asked for its version: `3.12`. */
export const PYTHON_VERSION_SCRIPT = 'import sys; print("%d.%d" % sys.version_info[:2])';

/** Its per-minute limit on MCP calls in the benchmark: more than any run makes. */
export const NEVER_REACHED_PER_MINUTE = 1_000_000_000;

/** The platform administrator its tokens name (its default address). */
export const CONTEXTFORGE_ADMIN = 'admin@example.com';
/** A token's lifetime in minutes: longer than any run of the benchmark. */
export const TOKEN_MINUTES = 24 * 60;

export interface PythonVersion {
  readonly major: number;
  readonly minor: number;
}

/** `3.12` (a candidate's output) → `{ major: 3, minor: 12 }`; `undefined` for anything else. */
export function parsePythonVersion(text: string): PythonVersion | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(text.trim());
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

export function isRecentEnough(version: PythonVersion): boolean {
  return (
    version.major > PYTHON_MINIMUM.major ||
    (version.major === PYTHON_MINIMUM.major && version.minor >= PYTHON_MINIMUM.minor)
  );
}

/** The secrets it refuses to start without (it rejects its placeholders, weak values and its default passwords). */
export interface ContextForgeSecrets {
  readonly jwtSecret: string;
  readonly encryptionSecret: string;
  readonly adminPassword: string;
  readonly userPassword: string;
  readonly basicAuthPassword: string;
}

/**
 * The environment of its gateway, its stdio bridge and its token tool:
 * only `PATH` and `HOME` from `base` (nothing else of the caller's shell is
 * read as one of its settings), the secrets, state in a SQLite file in
 * `dir`, its in-database cache and in-memory rate limiter rather than
 * Redis, loopback upstreams allowed (its protection against server-side
 * request forgery refuses 127.0.0.1 otherwise), and its per-minute limit
 * on MCP calls raised above anything a run reaches (its default, 100 a
 * minute per caller, refuses the benchmark's load; the full-policy gateway
 * of this benchmark has limits no run reaches too). Everything else is its
 * default: no plugins, no admin UI, errors only in the log.
 */
export function contextForgeEnv(
  dir: string,
  secrets: ContextForgeSecrets,
  base: NodeJS.ProcessEnv,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['PATH', 'HOME']) if (base[name] !== undefined) kept[name] = base[name];
  return {
    ...kept,
    JWT_SECRET_KEY: secrets.jwtSecret,
    AUTH_ENCRYPTION_SECRET: secrets.encryptionSecret,
    PLATFORM_ADMIN_EMAIL: CONTEXTFORGE_ADMIN,
    PLATFORM_ADMIN_PASSWORD: secrets.adminPassword,
    DEFAULT_USER_PASSWORD: secrets.userPassword,
    BASIC_AUTH_PASSWORD: secrets.basicAuthPassword,
    DATABASE_URL: `sqlite:///${dir}/contextforge.db`,
    CACHE_TYPE: 'database',
    RATE_LIMITING_REDIS_ENABLED: 'false',
    RATE_LIMIT_MEDIUM_RPM: String(NEVER_REACHED_PER_MINUTE),
    SSRF_ALLOW_LOCALHOST: 'true',
    LOG_LEVEL: 'ERROR',
  };
}

/** `text` as one word of a POSIX shell line (the bridge splits its `--stdio` command with `shlex`). */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * `python -m mcpgateway.translate` in front of `upstream`: its Streamable
 * HTTP endpoint (`/mcp`) on 127.0.0.1, its defaults otherwise.
 */
export function bridgeArgs(upstream: StdioCommand, port: number): string[] {
  const command = [upstream.command, ...upstream.args].map(shellWord).join(' ');
  return [
    '-m',
    'mcpgateway.translate',
    '--stdio',
    command,
    '--expose-streamable-http',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--logLevel',
    'error',
  ];
}

/** The `mcpgateway` command's arguments: on 127.0.0.1, one process. */
export function gatewayArgs(port: number): string[] {
  return ['--host', '127.0.0.1', '--port', String(port)];
}

/** `python -m mcpgateway.utils.create_jwt_token`: a signed token for the administrator. */
export function tokenArgs(secret: string): string[] {
  return [
    '-m',
    'mcpgateway.utils.create_jwt_token',
    '--username',
    CONTEXTFORGE_ADMIN,
    '--exp',
    String(TOKEN_MINUTES),
    '--secret',
    secret,
  ];
}

/**
 * The name the bridge is registered under: ContextForge names each tool it
 * federates `<gateway>-<tool>` (see `CONTEXTFORGE_ECHO` in `gateway-setup.ts`).
 */
export const CONTEXTFORGE_GATEWAY_NAME = 'everything';

/** `POST /gateways`: the bridge's Streamable HTTP endpoint as a federated gateway. */
export function gatewayRegistration(bridgeUrl: string): Record<string, unknown> {
  return { name: CONTEXTFORGE_GATEWAY_NAME, url: bridgeUrl, transport: 'STREAMABLEHTTP' };
}

/** `POST /servers`: a virtual server that exposes the tools of `toolIds`. */
export function virtualServer(toolIds: readonly string[]): Record<string, unknown> {
  return {
    server: {
      name: CONTEXTFORGE_GATEWAY_NAME,
      description: 'server-everything over stdio',
      associated_tools: [...toolIds],
    },
  };
}

interface ListedTool {
  readonly id?: unknown;
  readonly name?: unknown;
}

/** The id of the tool called `name` in a `GET /tools` answer (a list, or a page with `items`). */
export function toolIdOf(listing: unknown, name: string): string | undefined {
  const items: unknown =
    typeof listing === 'object' && listing !== null && !Array.isArray(listing)
      ? (listing as { items?: unknown }).items
      : listing;
  if (!Array.isArray(items)) return undefined;
  const tool = (items as ListedTool[]).find((item) => item.name === name);
  return typeof tool?.id === 'string' ? tool.id : undefined;
}

/** `id` of a `POST /servers` answer. */
export function serverIdOf(answer: unknown): string | undefined {
  const id = (answer as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : undefined;
}
