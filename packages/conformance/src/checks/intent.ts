/** The intent suite: the checks of a server that advertises `io.github.mcp-ext/intent`. */
import { describe, ensure } from '../assert.js';
import type { ExtensionSuite } from '../types.js';
import { ERRORS_ID, readOnlyCall, resultMeta } from './methods.js';

export const INTENT_ID = 'io.github.mcp-ext/intent';
/** `@ext/intent` (SPEC: packages/intent/SPEC.md). */
export const intentSuite: ExtensionSuite = {
  extension: 'intent',
  ids: [INTENT_ID],
  spec: 'packages/intent/SPEC.md',
  checks: [
    {
      id: 'intent/settings',
      requirement: 'INT-1',
      level: 'MUST',
      title: 'settings carry mode (advisory or redirect) and an integer max_intent_length',
      run(ctx) {
        ensure(
          ctx.settings.mode === 'advisory' || ctx.settings.mode === 'redirect',
          `mode is ${describe(ctx.settings.mode)}`,
        );
        ensure(
          Number.isSafeInteger(ctx.settings.max_intent_length) && (ctx.settings.max_intent_length as number) >= 1,
          `max_intent_length is ${describe(ctx.settings.max_intent_length)}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'intent/malformed-refused',
      requirement: 'INT-3',
      level: 'MUST',
      title: 'an empty or oversized intent is refused as invalid_input naming the field',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const withErrors = ERRORS_ID in ctx.server.extensions;
        const probe = await ctx.connect({
          extensions: {
            [ctx.id ?? INTENT_ID]: { version: '1.0' },
            ...(withErrors ? { [ERRORS_ID]: { version: '1.0' } } : {}),
          },
        });
        const max = typeof ctx.settings.max_intent_length === 'number' ? ctx.settings.max_intent_length : 500;
        for (const intent of ['', 'x'.repeat(max + 1)]) {
          const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { intent } });
          ensure(result.isError === true, `an intent of ${String(intent.length)} characters was accepted`);
          const structured = withErrors ? resultMeta(result, ERRORS_ID) : undefined;
          if (structured !== undefined) {
            ensure(structured.category === 'invalid_input', `category is ${describe(structured.category)}`);
            ensure(
              describe(structured.details).includes('"field":"intent"'),
              `details is ${describe(structured.details)}`,
            );
          }
        }
      },
    },
    {
      id: 'intent/ignored-without-negotiation',
      requirement: 'INT-2',
      level: 'MUST',
      title: 'a client that did not negotiate gets its entry ignored and no result._meta[id]',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect({});
        const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { intent: '' } });
        const plain = await probe.callTool(tool.name, args);
        ensure(result.isError === plain.isError, 'the ignored entry changed the outcome of the call');
        ensure(resultMeta(result, ctx.id) === undefined, `result._meta carries ${ctx.id ?? ''}`);
      },
    },
  ],
};
