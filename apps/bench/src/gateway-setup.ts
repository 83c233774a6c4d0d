/**
 * What the gateway benchmark runs, as data: the two upstreams' timed tools,
 * the paths to them and their labels, the gateway configs (no policy, full
 * policy, in front of either upstream), the caller the full-policy gateway
 * is told about, the client halves of an extension-aware host, and the
 * checks a result must pass before a path is timed. No I/O.
 */
import type { ClientExtension, ToolResult } from '@ext/core';
import { confirmationClient } from '@ext/confirmation/client';
import { contentNegotiationClient } from '@ext/content-negotiation/client';
import { costClient, getCostInfo } from '@ext/cost/client';
import { errorsClient } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient } from '@ext/idempotency/client';
import { intentClient, intentMeta } from '@ext/intent/client';
import { manifestClient } from '@ext/manifest/client';
import { multimodalClient } from '@ext/multimodal/client';
import { permissionsClient } from '@ext/permissions/client';
import { getProvenance, provenanceClient } from '@ext/provenance/client';
import { transactionsClient } from '@ext/transactions/client';

/** The timed tool on the upstream: it writes nothing and says the text back. */
export const WRITE_TOOL = 'write';
/** A second, read-only tool: the target of the full policy's intent rule. */
export const READ_TOOL = 'read';
export const WRITE_ARGS = { text: 'hello' };

/** A tool a path times: its name, the arguments of each call, and the text its result must say. */
export interface TimedTool {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly answer: string;
  /** Another tool of the same upstream: the target of the full policy's intent rule. */
  readonly other: string;
}

/** The HTTP upstream's `write`. */
export const WRITE: TimedTool = { name: WRITE_TOOL, args: WRITE_ARGS, answer: WRITE_ARGS.text, other: READ_TOOL };

/** `@modelcontextprotocol/server-everything`'s `echo`, over stdio, which answers `Echo: <message>`. */
export const ECHO: TimedTool = {
  name: 'echo',
  args: { message: 'hello' },
  answer: 'Echo: hello',
  other: 'get-sum',
};

/** `echo` through ContextForge's virtual server, which names each tool it federates `<gateway>-<tool>`. */
export const CONTEXTFORGE_ECHO: TimedTool = { ...ECHO, name: 'everything-echo', other: 'everything-get-sum' };

/** What a gateway of the benchmark is told its upstream is: an HTTP URL, or this word for the stdio one. */
export const STDIO_UPSTREAM = 'stdio:everything';

/** The scope the full policy requires for `write`, which the caller in front of the gateway holds. */
export const WRITE_SCOPE = 'notes:write';
/** The provenance source the full policy cites on every result. */
export const PROVENANCE_SOURCE = 'bench-upstream';
/** The intent the extension-aware host states with each call: the intent rule reads it and does not match. */
export const STATED_INTENT = 'store the benchmark note';

/** The era every client and gateway of the benchmark speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The ways the benchmark reaches the HTTP upstream's tool: directly, through
 * the two gateways, and through two reference relays (see `gateway-relay.ts`).
 */
export type HttpPath = 'direct' | 'plain' | 'policy' | 'relay' | 'sdk-relay';
/**
 * The ways it reaches the stdio upstream's tool: through `mcp-proxy`, through
 * the two gateways, and, where it could be installed, through ContextForge's
 * gateway and through its stdio bridge alone (the gateway's upstream).
 */
export type StdioPath = 'proxy' | 'stdio-plain' | 'stdio-policy' | 'contextforge' | 'contextforge-bridge';
export type GatewayPath = HttpPath | StdioPath;
/** The two gateways, each in a process of its own (one pair per upstream). */
export type GatewayMode = 'plain' | 'policy';
/** The two reference relays, each in a process of its own. */
export type RelayKind = Extract<GatewayPath, 'relay' | 'sdk-relay'>;

export const HTTP_PATHS: readonly HttpPath[] = ['direct', 'plain', 'policy', 'relay', 'sdk-relay'];
export const STDIO_PATHS: readonly StdioPath[] = [
  'proxy',
  'stdio-plain',
  'stdio-policy',
  'contextforge',
  'contextforge-bridge',
];
export const GATEWAY_PATHS: readonly GatewayPath[] = [...HTTP_PATHS, ...STDIO_PATHS];

export const PATH_LABELS: Readonly<Record<GatewayPath, string>> = {
  direct: '(a) direct to the upstream',
  plain: '(b) through the gateway, no policy',
  policy: '(c) through the gateway, full policy',
  relay: '(d) raw HTTP relay, no MCP (reference)',
  'sdk-relay': '(e) bare SDK relay, no extensions (reference)',
  proxy: '(f) `mcp-proxy` (reference)',
  'stdio-plain': '(g) through the gateway, no policy',
  'stdio-policy': '(h) through the gateway, full policy',
  contextforge: '(i) ContextForge (reference)',
  'contextforge-bridge': "(j) ContextForge's stdio bridge alone (reference)",
};

/** The paths whose failure during a run leaves them out, with the reason, rather than failing the run. */
export function isOptionalPath(path: GatewayPath): boolean {
  return path === 'contextforge' || path === 'contextforge-bridge';
}

export function isStdioPath(path: GatewayPath): path is StdioPath {
  return (STDIO_PATHS as readonly string[]).includes(path);
}

/** The tool `path` times. */
export function timedTool(path: GatewayPath): TimedTool {
  if (path === 'contextforge') return CONTEXTFORGE_ECHO;
  return isStdioPath(path) ? ECHO : WRITE;
}

/**
 * Whether the plain client of `path` pins the 2026-07-28 era: all do but
 * the one of ContextForge's bridge, which serves only the 2025 handshake
 * (its client negotiates 2025-11-25 there).
 */
export function pinsModernEra(path: GatewayPath): boolean {
  return path !== 'contextforge-bridge';
}

/** The gateways' mode of a path through one, `undefined` for a path through no gateway of ours. */
export function modeOf(path: GatewayPath): GatewayMode | undefined {
  if (path === 'plain' || path === 'stdio-plain') return 'plain';
  if (path === 'policy' || path === 'stdio-policy') return 'policy';
  return undefined;
}

export function isGatewayMode(text: string | undefined): text is GatewayMode {
  return text === 'plain' || text === 'policy';
}

export function isRelayKind(text: string | undefined): text is RelayKind {
  return text === 'relay' || text === 'sdk-relay';
}

/** High enough that no run reaches them: the cost layer counts every call and refuses none. */
const NEVER_REACHED = 1_000_000_000_000;

/** Nothing applies: no confirmation, no idempotency, no cost, no scopes, no intent rules, no provenance. */
function plainPolicy(): Record<string, unknown> {
  return { '*': { confirm: false, idempotent: false } };
}

/**
 * Everything a write would get, with nothing that refuses or waits: a
 * metered cost with a quota and rate limits no run reaches, a scope, keys
 * honoured, provenance cited; confirmation is not required. The intent rule
 * recommends the upstream's other tool for calls of the timed one whose
 * stated intent says "look up".
 */
function fullPolicy(tool: TimedTool): Record<string, unknown> {
  return {
    [tool.name]: {
      confirm: false,
      scopes: [WRITE_SCOPE],
      cost: {
        units: 1,
        unit: 'writes',
        category: 'metered',
        latency: 'instant',
        quota: { limit: NEVER_REACHED, windowSeconds: 86_400 },
        rateLimit: { perMinute: NEVER_REACHED, perDay: NEVER_REACHED },
      },
      idempotent: true,
      provenance: { source: PROVENANCE_SOURCE },
    },
    [tool.other]: {
      intent: [{ keywords: ['look up', 'read back'], reason: 'Reads without writing.', from: [tool.name] }],
    },
  };
}

/** How a gateway starts the stdio upstream: `node <server-everything's bin> stdio`. */
export interface StdioCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * The gateway config of `mode` (what `parseConfig` reads): one upstream,
 * the HTTP one spoken to in the 2026-07-28 era or the stdio one started by
 * `stdio` (the 2025 handshake), state in the SQLite file at `sqlitePath`.
 * Every caller is the one anonymous principal unless something in front of
 * the gateway says who it is (the full-policy gateway's callers are, see
 * {@link callerAuthInfo}).
 */
export function gatewayConfig(
  mode: GatewayMode,
  upstream: string | StdioCommand,
  sqlitePath: string,
): Record<string, unknown> {
  const stdio = typeof upstream !== 'string';
  return {
    name: `bench-gateway-${mode}${stdio ? '-stdio' : ''}`,
    upstreams: {
      notes: stdio
        ? { command: upstream.command, args: [...upstream.args] }
        : { url: upstream, protocol: '2026-07-28' },
    },
    policy: mode === 'plain' ? plainPolicy() : fullPolicy(stdio ? ECHO : WRITE),
    store: { sqlite: sqlitePath },
    identity: { anonymous: true },
  };
}

/** The SDK's auth info an OAuth layer in front of the gateway would hand it. */
export interface BenchAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
}

/**
 * What the authentication in front of the full-policy gateway makes of a
 * request: a bearer token names the caller (its own principal, so its own
 * quota and idempotency budget) and grants {@link WRITE_SCOPE}; a request
 * without one is left to the gateway (the anonymous caller, no scope).
 */
export function callerAuthInfo(authorization: string | null): BenchAuthInfo | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  return token === undefined ? undefined : { token, clientId: token, scopes: [WRITE_SCOPE] };
}

/** The client halves of a host that speaks every extension the gateway composes. */
export function extensionAwareHalves(): ClientExtension[] {
  return [
    errorsClient(),
    contentNegotiationClient(),
    permissionsClient(),
    costClient(),
    intentClient(),
    multimodalClient(),
    confirmationClient(),
    idempotencyClient(),
    transactionsClient(),
    provenanceClient(),
    manifestClient(),
  ];
}

/** `params._meta` of each call of the extension-aware host (its client halves add the idempotency key). */
export function policyCallMeta(): Record<string, unknown> {
  return intentMeta(STATED_INTENT);
}

/** Throws unless `result` says `tool`'s answer: not an error, not a refusal. */
export function checkAnswered(result: unknown, tool: TimedTool = WRITE): void {
  const record = result as ToolResult;
  if (record.isError === true || record.content[0]?.text !== tool.answer)
    throw new Error(`gateway bench: unexpected result ${JSON.stringify(result).slice(0, 500)}`);
}

/**
 * Throws unless the full policy visibly ran on `result`: the text came
 * back, a fresh idempotency key was recorded (not replayed), the cost layer
 * counted the call and the result cites the provenance source.
 */
export function checkPolicyApplied(result: unknown, tool: TimedTool = WRITE): void {
  checkAnswered(result, tool);
  const record = result as ToolResult;
  const missing: string[] = [];
  if (getReplayInfo(record)?.was_replay !== false) missing.push('idempotency record');
  if (getCostInfo(record) === undefined) missing.push('cost');
  if (getProvenance(record)?.sources[0]?.source !== PROVENANCE_SOURCE) missing.push('provenance');
  if (missing.length > 0)
    throw new Error(
      `gateway bench: the full policy did not apply (${missing.join(', ')} missing): ${JSON.stringify(record._meta)}`,
    );
}
