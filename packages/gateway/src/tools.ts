/**
 * The proxied tools: each upstream tool registered on an extended server
 * under its exposed name, with the upstream's schema and annotations and the
 * policy's `_meta`, so every call runs through the extension pipeline before
 * it reaches the upstream.
 */
import type { ExtendedServer, ToolResult } from '@ext/core';
import { cite } from '@ext/provenance/server';
import { fromJsonSchema, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import { redactedResult, type ToolRedaction } from './redact/tool-results.js';
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

/** Registers `tools` on `server`; each call goes through the pipeline, then to its upstream. */
export function registerGatewayTools(
  server: ExtendedServer,
  tools: readonly GatewayTool[],
  callUpstream: CallUpstream,
  options: { readonly redaction: ToolRedaction },
): void {
  const { redaction } = options;
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: inputSchemaOf(tool),
        annotations: policyAnnotations(tool.annotations, tool.policy),
        _meta: policyToolMeta(tool.policy),
      },
      async (args, ctx) => {
        const answer = await callUpstream(tool.upstream, tool.upstreamName, args as Record<string, unknown>, {
          signal: ctx.signal,
        });
        // Redacted before any stage sees it, so what idempotency records is what the client receives (GW-23).
        const result = redaction.results ? redactedResult(redaction.redactor, answer) : answer;
        const source = tool.policy.provenance?.source;
        if (source !== undefined && result.isError !== true) {
          cite(ctx, { source, retrievedAt: new Date(), confidence: 'exact' });
        }
        return result as unknown as ToolResult;
      },
    );
  }
}
