/**
 * What the gateway benchmark runs, as data: the upstream's tools, the paths
 * to it and their labels, the two gateway configs (no policy, full policy),
 * the caller the full-policy gateway is told about, the client halves of an
 * extension-aware host, and the checks a result must pass before a path is
 * timed. No I/O.
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

/** The scope the full policy requires for `write`, which the caller in front of the gateway holds. */
export const WRITE_SCOPE = 'notes:write';
/** The provenance source the full policy cites on every result. */
export const PROVENANCE_SOURCE = 'bench-upstream';
/** The intent the extension-aware host states with each call: the intent rule reads it and does not match. */
export const STATED_INTENT = 'store the benchmark note';

/** The era every client and gateway of the benchmark speaks. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The ways the benchmark reaches the upstream's tool: directly, through the
 * two gateways, and through two reference relays (see `gateway-relay.ts`).
 */
export type GatewayPath = 'direct' | 'plain' | 'policy' | 'relay' | 'sdk-relay';
/** The two gateways, each in a process of its own. */
export type GatewayMode = Extract<GatewayPath, 'plain' | 'policy'>;
/** The two reference relays, each in a process of its own. */
export type RelayKind = Extract<GatewayPath, 'relay' | 'sdk-relay'>;

export const GATEWAY_PATHS: readonly GatewayPath[] = ['direct', 'plain', 'policy', 'relay', 'sdk-relay'];

export const PATH_LABELS: Readonly<Record<GatewayPath, string>> = {
  direct: '(a) direct to the upstream',
  plain: '(b) through the gateway, no policy',
  policy: '(c) through the gateway, full policy',
  relay: '(d) raw HTTP relay, no MCP (reference)',
  'sdk-relay': '(e) bare SDK relay, no extensions (reference)',
};

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
 * recommends `read` for calls of `write` whose stated intent says "look up".
 */
function fullPolicy(): Record<string, unknown> {
  return {
    [WRITE_TOOL]: {
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
    [READ_TOOL]: {
      intent: [{ keywords: ['look up', 'read back'], reason: 'Reads without writing.', from: [WRITE_TOOL] }],
    },
  };
}

/**
 * The gateway config of `mode` (what `parseConfig` reads): one HTTP
 * upstream spoken to in the 2026-07-28 era, state in the SQLite file at
 * `sqlitePath`. Every caller is the one anonymous principal unless
 * something in front of the gateway says who it is (the full-policy
 * gateway's callers are, see {@link callerAuthInfo}).
 */
export function gatewayConfig(mode: GatewayMode, upstreamUrl: string, sqlitePath: string): Record<string, unknown> {
  return {
    name: `bench-gateway-${mode}`,
    upstreams: { notes: { url: upstreamUrl, protocol: '2026-07-28' } },
    policy: mode === 'plain' ? plainPolicy() : fullPolicy(),
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

/** Throws unless `result` says the text back: not an error, not a refusal. */
export function checkWritten(result: unknown): void {
  const record = result as ToolResult;
  if (record.isError === true || record.content[0]?.text !== WRITE_ARGS.text)
    throw new Error(`gateway bench: unexpected result ${JSON.stringify(result).slice(0, 500)}`);
}

/**
 * Throws unless the full policy visibly ran on `result`: the text came
 * back, a fresh idempotency key was recorded (not replayed), the cost layer
 * counted the call and the result cites the provenance source.
 */
export function checkPolicyApplied(result: unknown): void {
  checkWritten(result);
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
