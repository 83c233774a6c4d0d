/** The content-negotiation suite: the checks of a server that advertises `io.github.mcp-ext/content-negotiation`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { firstText } from '../tools.js';
import type { CheckContext, ExtensionSuite } from '../types.js';
import { readOnlyCall, resultMeta } from './methods.js';
import { resultVariantChecks } from './result-variants.js';

export const CONTENT_NEGOTIATION_ID = 'io.github.mcp-ext/content-negotiation';

function profile(ctx: CheckContext, features: readonly unknown[]) {
  return { extensions: { [ctx.id ?? CONTENT_NEGOTIATION_ID]: { version: '1.0', features } } };
}

/** `@ext/content-negotiation` (SPEC: packages/content-negotiation/SPEC.md). */
export const contentNegotiationSuite: ExtensionSuite = {
  extension: 'content-negotiation',
  ids: [CONTENT_NEGOTIATION_ID],
  spec: 'packages/content-negotiation/SPEC.md',
  checks: [
    {
      id: 'content-negotiation/applied-features',
      requirement: 'CN-14',
      level: 'MUST',
      title: 'when negotiated, a result names the features applied to it in result._meta[id].features',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect(profile(ctx, ['agent']));
        const result = await probe.callTool(tool.name, args);
        const meta = resultMeta(result, ctx.id);
        ensure(
          meta !== undefined && Array.isArray(meta.features) && meta.features.every((tag) => typeof tag === 'string'),
          `result._meta is ${describe(result._meta)}`,
        );
      },
    },
    {
      id: 'content-negotiation/json-format',
      requirement: 'CN-10',
      level: 'MUST',
      title: 'format=json yields structuredContent (an object) and its JSON text',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect(profile(ctx, ['format=json']));
        const result = await probe.callTool(tool.name, args);
        if (result.isError === true) return ctx.skip(`${tool.name} failed with sample arguments: ${firstText(result)}`);
        const applied = resultMeta(result, ctx.id)?.features;
        if (!Array.isArray(applied) || !applied.includes('format=json'))
          return ctx.skip(`${tool.name} does not vary its format`);
        ensure(isRecord(result.structuredContent), `structuredContent is ${describe(result.structuredContent)}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(firstText(result));
        } catch {
          parsed = undefined;
        }
        ensure(
          JSON.stringify(parsed) === JSON.stringify(result.structuredContent),
          'the text block is not the JSON of structuredContent',
        );
      },
    },
    {
      id: 'content-negotiation/malformed-tags-ignored',
      requirement: 'CN-4',
      level: 'MUST',
      title: 'malformed feature tags are dropped, never an error, and the extension stays negotiated',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect(profile(ctx, ['agent', 42, '', '!!!', 'format==json', 'x'.repeat(500)]));
        const result = await probe.callTool(tool.name, args);
        const meta = resultMeta(result, ctx.id);
        ensure(meta !== undefined, `the extension was dropped for malformed tags: ${describe(result._meta)}`);
        const features = Array.isArray(meta.features) ? meta.features : [];
        ensure(
          !features.some((tag) => tag === '!!!' || tag === 42 || tag === ''),
          `malformed tags were applied: ${describe(features)}`,
        );
      },
    },
    {
      id: 'content-negotiation/not-negotiated',
      requirement: 'CN-7',
      level: 'MUST',
      title: 'a client that did not negotiate gets no result._meta[id], even when it sends params._meta[id]',
      async run(ctx) {
        const { tool, args } = readOnlyCall(ctx);
        const probe = await ctx.connect({});
        const result = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { features: ['human'] } });
        ensure(
          resultMeta(result, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? ''} for a client that never advertised it`,
        );
      },
    },
    // SEP-3279 result variants (draft), served with the server's `resultVariants` option.
    ...resultVariantChecks,
  ],
};
