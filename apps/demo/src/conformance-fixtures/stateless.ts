/**
 * The fixtures of the official suite's 2026-07-28 line that probe the
 * stateless protocol and its HTTP mapping: the diagnostic tools of
 * `server-stateless` (SEP-2575: an undeclared client capability, a call
 * that needs input, a call that logs) and a tool whose argument is mirrored
 * into an `Mcp-Param-*` header (`x-mcp-header`, SEP-2243). All run through
 * the extension pipeline.
 */
import type { CallContext, ExtendedServer, ToolResult } from '@ext/core';
import { fromJsonSchema, inputRequired, inputResponse, type ServerContext } from '@modelcontextprotocol/server';
import { text } from './media.js';

const answerOf = (ctx: CallContext, key: string) =>
  inputResponse((ctx.sdkContext as ServerContext).mcpReq.inputResponses, key);

/** Registers the diagnostic tools and the header-mirrored tool. */
export function registerStatelessFixtures(extended: ExtendedServer): void {
  registerDiagnosticTools(extended);
  registerHeaderTool(extended);
}

function registerDiagnosticTools(extended: ExtendedServer): void {
  // Asks the client to sample: a client that did not declare `sampling` is answered -32021 (HTTP 400) by the SDK.
  extended.registerTool(
    'test_missing_capability',
    { description: 'Needs the client to sample; refused when the client declared no sampling capability.' },
    (_args, ctx) => {
      if (answerOf(ctx, 'sample').kind === 'sampling') return text('Sampled');
      const request = inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say something' } }],
        maxTokens: 20,
      });
      return inputRequired({ inputRequests: { sample: request } }) as unknown as ToolResult;
    },
  );
  // On 2026-07-28 the question travels in the result, never as a request of the server's own on the stream.
  extended.registerTool(
    'test_streaming_elicitation',
    { description: 'Reports progress, then asks the user a question through an input_required result.' },
    async (_args, ctx) => {
      const answer = answerOf(ctx, 'confirm');
      if (answer.kind === 'elicit') return text(`Answered: ${answer.action}`);
      if (ctx.progressToken !== undefined)
        await ctx.notify('notifications/progress', { progressToken: ctx.progressToken, progress: 1, total: 2 });
      const confirm = inputRequired.elicit({
        message: 'Continue?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return inputRequired({ inputRequests: { confirm } }) as unknown as ToolResult;
    },
  );
  extended.registerTool(
    'test_logging_tool',
    { description: 'Logs a message while it runs, at the level the request asked for, if any.' },
    async (_args, ctx) => {
      await ctx.notify('notifications/message', { level: 'info', data: 'test_logging_tool ran' });
      return text('Logged');
    },
  );
}

/** `x-mcp-header` is an annotation of SEP-2243, outside the JSON Schema vocabulary the SDK types. */
const PARAM_HEADER_INPUT = {
  type: 'object' as const,
  properties: { region: { type: 'string' as const, description: 'A region name', 'x-mcp-header': 'Region' } },
  required: ['region'],
};

/** The `region` argument travels in the `Mcp-Param-Region` header as well; the SDK checks the two agree. */
function registerHeaderTool(extended: ExtendedServer): void {
  extended.registerTool(
    'test_param_header',
    {
      description: 'Echoes a region that is mirrored into the Mcp-Param-Region header.',
      inputSchema: fromJsonSchema<{ region: string }>(PARAM_HEADER_INPUT),
    },
    ({ region }) => text(`Region: ${region}`),
  );
}
