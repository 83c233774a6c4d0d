/**
 * `mcp-ext-gateway approvals list | approve | deny` (GW-32): the requests a
 * running gateway holds for an operator, read and decided through its
 * approvals API with the operator's credentials from the environment.
 */
import { ConfigurationError } from '@ext/core';
import { approvalsUrl } from './approvals.js';
import type { ApprovalsArgs } from './cli-args.js';
import { loadConfig } from './config/load.js';
import type { CommandIo } from './pins/commands.js';

/** The environment variable holding the operator's API key or access token. */
export const TOKEN_ENV = 'MCP_EXT_GATEWAY_TOKEN';

interface RequestSummary {
  readonly id: string;
  readonly state: string;
  readonly tool: string;
  readonly principal: string;
  readonly risk_level: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_by?: string;
  readonly reason?: string;
}

/** What an API answer says went wrong, or its status. */
async function failure(response: Response): Promise<Error> {
  const text = await response.text();
  let message = `${String(response.status)} ${response.statusText}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message !== undefined)
      message = `${body.error.code ?? String(response.status)}: ${body.error.message}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return new Error(`the gateway refused: ${message}`);
}

/** How long ago, or how long until, `iso`, in words. */
function relative(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const size = Math.abs(seconds);
  const words =
    size < 90
      ? `${String(size)}s`
      : size < 5400
        ? `${String(Math.round(size / 60))}m`
        : `${String(Math.round(size / 3600))}h`;
  return seconds < 0 ? `${words} ago` : `in ${words}`;
}

function line(request: RequestSummary, now: number): string {
  const decided = request.decided_by === undefined ? '' : ` by ${request.decided_by}`;
  const reason = request.reason === undefined ? '' : ` (${request.reason})`;
  const when =
    request.state === 'pending'
      ? `expires ${relative(request.expires_at, now)}`
      : `${request.state}${decided}${reason}`;
  return `${request.id}  ${request.tool}  ${request.risk_level}  asked by ${request.principal} ${relative(request.created_at, now)}  ${when}`;
}

async function baseUrl(args: ApprovalsArgs): Promise<string> {
  if (args.url !== undefined) return args.url.replace(/\/+$/, '');
  const { config } = await loadConfig(args.config ?? '');
  if (config.approvals === undefined)
    throw new ConfigurationError(
      'INVALID_OPTION',
      'approvals: the config has no approvals section; nothing is held for an operator',
    );
  return approvalsUrl(config);
}

/** Runs one approvals command; what it reports goes to `io.print`. */
export async function runApprovalsCommand(
  args: ApprovalsArgs,
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const token = env[TOKEN_ENV];
  if (token === undefined || token === '')
    throw new ConfigurationError(
      'INVALID_OPTION',
      `approvals: set ${TOKEN_ENV} to an API key or access token with the approver scope`,
    );
  const base = await baseUrl(args);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (args.action === 'list') {
    const query = args.state === undefined ? '' : `?state=${encodeURIComponent(args.state)}`;
    const response = await fetch(`${base}/api/requests${query}`, { headers });
    if (!response.ok) throw await failure(response);
    const { requests } = (await response.json()) as { requests: RequestSummary[] };
    if (requests.length === 0) io.print('no requests');
    for (const request of requests) io.print(line(request, Date.now()));
    return;
  }
  const response = await fetch(`${base}/api/requests/${encodeURIComponent(args.id ?? '')}/decision`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      approve: args.action === 'approve',
      ...(args.reason === undefined ? {} : { reason: args.reason }),
    }),
  });
  if (!response.ok) throw await failure(response);
  const { request } = (await response.json()) as { request: RequestSummary };
  io.print(line(request, Date.now()));
}
