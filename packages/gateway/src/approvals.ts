/**
 * Calls held for an operator (GW-29 to GW-32): the approval desk on the
 * gateway's store, who approves each tool (`confirm.approver`), the policy
 * checked again when an approval lets a call go on, and the operator's
 * surfaces (the approvals page and its API, the signed links of webhooks),
 * signed in through the gateway's own identity with the approver scope.
 */
import { canonicalHash, readIdentifyResult } from '@ext/core/kit';
import { ConfigurationError, type Logger, type Store, type ToolCall } from '@ext/core';
import {
  approvalDesk,
  approvalsPage,
  approvalWebhooks,
  type ApprovalDesk,
  type ApproverBackend,
} from '@ext/confirmation/approvals';
import type { ApproverRule } from '@ext/confirmation/server';
import { principalOf } from '@ext/core/sdk-v2/server';
import type { ApprovalsConfig, GatewayConfig } from './config/schema.js';
import type { HeldCalls } from './compose.js';
import type { CallerIdentification } from './identity.js';
import { admit, type PolicyLookup } from './policy/stage.js';

export const DEFAULT_APPROVALS_PATH = '/approvals';
export const DEFAULT_APPROVER_SCOPE = 'approvals:decide';

/** An operator as the approvals page sees them: whom the gateway's identity names, with their scopes. */
export interface Operator {
  readonly principal: string;
  readonly scopes: readonly string[];
}

/** The operator a request's credentials name (an API key, or an OAuth token), or `undefined`. */
export async function operatorOf(
  identification: CallerIdentification,
  request: Request,
): Promise<Operator | undefined> {
  // Named as the gateway names the same caller on its MCP endpoint, so "who asked" and "who decided" read alike.
  const keyed = readIdentifyResult(identification.identify?.(request), 'identity.apiKeys');
  if (keyed !== undefined) return keyed;
  if (identification.authenticate === undefined || !request.headers.has('authorization')) return undefined;
  const info = await identification.authenticate(request);
  if (info instanceof Response) return undefined;
  const principal = principalOf(info);
  return principal === undefined ? undefined : { principal, scopes: info.scopes };
}

/** Who approves a tool's calls, as its policy says (`user` when silent). */
export function approverOf(lookup: PolicyLookup): ApproverRule {
  return (tool) => lookup.policy(tool.name)?.confirm?.approver ?? 'user';
}

/** The secret an environment variable holds, or a configuration error naming the field. */
function secretFrom(env: NodeJS.ProcessEnv, name: string, field: string, minLength = 1): string {
  const value = env[name];
  if (value === undefined || value.length < minLength) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${field}: the environment variable ${name} is ${value === undefined ? 'not set' : `shorter than ${String(minLength)} characters`}`,
    );
  }
  return value;
}

export interface GatewayApprovals {
  readonly desk: ApprovalDesk;
  /** The confirmation server's options for held calls. */
  readonly confirmation: HeldCalls;
  /** The approvals page, its API and the webhook links; `undefined` for a request elsewhere. */
  fetch(request: Request): Promise<Response | undefined>;
}

export interface GatewayApprovalsContext {
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly lookup: PolicyLookup;
  readonly identification: () => CallerIdentification;
  readonly logger: Logger;
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** More backends told of each request and decision (the metrics count them). */
  readonly backends?: readonly ApproverBackend[] | undefined;
}

/** Where people reach the approvals page: `approvals.publicUrl`, else the listen address, then `approvals.path`. */
export function approvalsUrl(config: GatewayConfig): string {
  const configured = config.approvals?.publicUrl;
  const host = config.listen?.host ?? '127.0.0.1';
  const origin =
    configured?.replace(/\/+$/, '') ??
    `http://${host.includes(':') ? `[${host}]` : host}:${String(config.listen?.port ?? 8080)}`;
  return `${origin}${config.approvals?.path ?? DEFAULT_APPROVALS_PATH}`;
}

function webhooks(
  approvals: ApprovalsConfig,
  context: GatewayApprovalsContext,
  base: string,
  desk: () => ApprovalDesk,
) {
  const endpoints = approvals.webhooks ?? [];
  if (endpoints.length === 0) return undefined;
  const env = context.env ?? process.env;
  return approvalWebhooks({
    store: context.store,
    desk,
    endpoints: endpoints.map((endpoint, index) => ({
      url: endpoint.url,
      secret: secretFrom(env, endpoint.secretEnv, `approvals.webhooks.${String(index)}.secretEnv`),
      format: endpoint.format ?? 'standard',
    })),
    linkBaseUrl: `${base}/links`,
    linkSecret: secretFrom(env, approvals.linkSecretEnv ?? '', 'approvals.linkSecretEnv', 32),
    linkTtlSeconds: approvals.linkTtlSeconds,
  });
}

/** The gateway's approvals, when the config has an `approvals` section. */
export function gatewayApprovals(context: GatewayApprovalsContext): GatewayApprovals | undefined {
  const { config, store, lookup, logger } = context;
  const approvals = config.approvals;
  if (approvals === undefined) return undefined;
  const path = approvals.path ?? DEFAULT_APPROVALS_PATH;
  const base = approvalsUrl(config);
  // The links decide on the desk, which tells the webhooks of requests: the links read it once both exist.
  const hooks = webhooks(approvals, context, base, () => desk);
  const backends: ApproverBackend[] = [...(hooks === undefined ? [] : [hooks.backend]), ...(context.backends ?? [])];
  const desk = approvalDesk({
    store,
    ttlSeconds: approvals.ttlSeconds,
    link: base,
    backends,
    logger,
  });
  const page = approvalsPage({
    desk,
    basePath: path,
    approverScope: approvals.scope ?? DEFAULT_APPROVER_SCOPE,
    authenticate: (request) => operatorOf(context.identification(), request),
  });
  return {
    desk,
    confirmation: {
      approver: approverOf(lookup),
      approvals: desk,
      holdSeconds: approvals.holdSeconds,
      policyVersion: canonicalHash(config.policy ?? {}).slice(0, 16),
      recheck: (call: ToolCall, ctx) => {
        admit(lookup, call, ctx);
      },
    },
    fetch: async (request) => (await hooks?.links.fetch(request)) ?? page.fetch(request),
  };
}
