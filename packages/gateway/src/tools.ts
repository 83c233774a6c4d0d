/**
 * The proxied tools: each upstream tool registered on an extended server
 * under its exposed name, with the upstream's schema and annotations and the
 * policy's `_meta`, so every call runs through the extension pipeline before
 * it reaches the upstream.
 */
import { isRecord } from '@ext/core/kit';
import { type ExtendedServer, type ToolResult } from '@ext/core';
import { cite } from '@ext/provenance/server';
import { fromJsonSchema, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { callRetry } from './call-safety.js';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import { offeredNames, withOfferedRecovery } from './offered-recovery.js';
import { admittedPolicy } from './policy/stage.js';
import { GATEWAY_META_KEY, redactedResult, type ToolRedaction } from './redact/tool-results.js';
import { policyAnnotations, policyToolMeta } from './tool-meta.js';

// The 2026-07-28 era registers every tool again for each request: build each schema once per tool.
const schemas = new WeakMap<GatewayTool, StandardSchemaWithJSON>();

function inputSchemaOf(tool: GatewayTool): StandardSchemaWithJSON {
  let schema = schemas.get(tool);
  if (schema === undefined) {
    schema = fromJsonSchema(tool.inputSchema as Parameters<typeof fromJsonSchema>[0]);
    schemas.set(tool, schema);
  }
  return schema;
}

/**
 * `result` saying, in the gateway's `_meta` entry, the version of the policy
 * the call ran under (GW-50). The entry is ours alone: one the upstream
 * wrote there is dropped, one redaction wrote is kept.
 */
function withPolicyVersion(
  result: Record<string, unknown>,
  redacted: boolean,
  policyVersion: string,
): Record<string, unknown> {
  const meta = isRecord(result._meta) ? result._meta : {};
  const entry = meta[GATEWAY_META_KEY];
  const ours = redacted && isRecord(entry) ? entry : {};
  return { ...result, _meta: { ...meta, [GATEWAY_META_KEY]: { ...ours, policyVersion } } };
}

export interface GatewayToolsOptions {
  readonly redaction: ToolRedaction;
  /** The version of the policy these tools were resolved under, told with each result. */
  readonly policyVersion: string;
}

/** Registers `tools` on `server`; each call goes through the pipeline, then to its upstream. */
export function registerGatewayTools(
  server: ExtendedServer,
  tools: readonly GatewayTool[],
  callUpstream: CallUpstream,
  options: GatewayToolsOptions,
): void {
  const { redaction, policyVersion } = options;
  const names = offeredNames(tools);
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: inputSchemaOf(tool),
        annotations: withOfferedRecovery(policyAnnotations(tool.annotations, tool.policy), tool, names),
        _meta: policyToolMeta(tool.policy),
      },
      async (args, ctx) => {
        const answer = await callUpstream(tool.upstream, tool.upstreamName, args as Record<string, unknown>, {
          signal: ctx.signal,
          retry: callRetry(tool, ctx),
        });
        // Redacted before any stage sees it, so what idempotency records is what the client receives (GW-23).
        const redacted = redaction.results ? redactedResult(redaction.redactor, answer) : answer;
        // A reload between this tool's registration and the call's admission: the admitting policy wins (GW-50).
        const admitted = admittedPolicy(ctx);
        const result = withPolicyVersion(redacted, redacted !== answer, admitted?.version ?? policyVersion);
        const source = (admitted?.policy ?? tool.policy).provenance?.source;
        if (source !== undefined && result.isError !== true) {
          cite(ctx, { source, retrievedAt: new Date(), confidence: 'exact' });
        }
        return result as unknown as ToolResult;
      },
    );
  }
}
