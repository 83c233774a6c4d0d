/** The session-state suite: the checks of a server that advertises `io.github.mcp-ext/session-state`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { firstText } from '../tools.js';
import type { CheckContext, ExtensionSuite } from '../types.js';
import { ERRORS_ID, readOnlyCall, resultMeta } from './methods.js';

export const SESSION_STATE_ID = 'io.github.mcp-ext/session-state';
function profile(ctx: CheckContext): { extensions: Record<string, Record<string, unknown>> } {
  return {
    extensions: {
      [ctx.id ?? SESSION_STATE_ID]: { version: '1.0' },
      ...(ERRORS_ID in ctx.server.extensions ? { [ERRORS_ID]: { version: '1.0' } } : {}),
    },
  };
}

/** A token that no server ever sealed: well-formed base64url, not authentic. */
const FORGED = 'AQ' + 'A'.repeat(86);

/** `@ext/session-state` (SPEC: packages/session-state/SPEC.md). */
export const sessionStateSuite: ExtensionSuite = {
  extension: 'session-state',
  ids: [SESSION_STATE_ID],
  spec: 'packages/session-state/SPEC.md',
  checks: [
    {
      id: 'session-state/settings',
      requirement: 'SS-1',
      level: 'MUST',
      title: 'settings carry integer ttl_seconds and max_token_bytes',
      run(ctx) {
        for (const field of ['ttl_seconds', 'max_token_bytes']) {
          ensure(
            Number.isSafeInteger(ctx.settings[field]) && (ctx.settings[field] as number) >= 1,
            `${field} is ${describe(ctx.settings[field])}`,
          );
        }
        return Promise.resolve();
      },
    },
    {
      id: 'session-state/refuses-bad-token',
      requirement: 'SS-8',
      level: 'MUST',
      title: 'a forged or malformed token is refused with invalid_input SESSION_STATE_INVALID before the tool runs',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect(profile(ctx));
        for (const token of [FORGED, 'not base64url!', '']) {
          const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { session_state: token } });
          ensure(result.isError === true, `token ${describe(token)} was accepted: ${describe(result)}`);
          const structured = resultMeta(result, ERRORS_ID);
          if (structured === undefined) continue;
          ensure(
            structured.category === 'invalid_input' && structured.code === 'SESSION_STATE_INVALID',
            `structured error is ${describe(structured)}`,
          );
          const details = isRecord(structured.details) ? structured.details : {};
          ensure(typeof details.reason === 'string', `details.reason is ${describe(details.reason)}`);
        }
      },
    },
    {
      id: 'session-state/suggests-retry-without-token',
      requirement: 'SS-9',
      level: 'MUST',
      title: 'the refusal suggests retrying without a token',
      async run(ctx) {
        if (!(ERRORS_ID in ctx.server.extensions))
          return ctx.skip('the server does not compose the errors extension, so no suggestion field to read');
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect(profile(ctx));
        const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { session_state: FORGED } });
        const structured = resultMeta(result, ERRORS_ID);
        ensure(
          typeof structured?.suggestion === 'string' && /without/i.test(structured.suggestion),
          `suggestion is ${describe(structured?.suggestion)}`,
        );
        ensure(firstText(result) !== '', 'the refusal has no readable text');
      },
    },
    {
      id: 'session-state/ignored-without-negotiation',
      requirement: 'SS-3',
      level: 'MUST',
      title: 'a client that did not negotiate gets its entry ignored (not refused) and no result._meta[id]',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect({});
        const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { session_state: FORGED } });
        ensure(
          resultMeta(result, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? ''}: ${describe(result._meta)}`,
        );
        const plain = await probe.callTool(tool.name, args);
        ensure(result.isError === plain.isError, 'the ignored entry changed the outcome of the call');
      },
    },
  ],
};
