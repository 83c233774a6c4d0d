/** The provenance suite: the checks of a server that advertises `io.github.mcp-ext/provenance`. */
import { canonicalHash, isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { safeTools } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { resultMeta } from './methods.js';

export const PROVENANCE_ID = 'io.github.mcp-ext/provenance';

/** The first read-only tool whose result cites a source, with its result. */
async function citingCall(
  ctx: CheckContext,
): Promise<{ tool: ListedTool; args: Record<string, unknown>; result: Record<string, unknown> }> {
  const probe = await ctx.connect();
  for (const { tool, args } of safeTools(ctx.server.tools)) {
    const result = await probe.callTool(tool.name, args);
    if (resultMeta(result, ctx.id) !== undefined) return { tool, args, result };
  }
  return ctx.skip('no read-only tool cited a source with sample arguments');
}

/** `@ext/provenance` (SPEC: packages/provenance/SPEC.md). */
export const provenanceSuite: ExtensionSuite = {
  extension: 'provenance',
  ids: [PROVENANCE_ID],
  spec: 'packages/provenance/SPEC.md',
  checks: [
    {
      id: 'provenance/settings',
      requirement: 'PROV-1',
      level: 'MUST',
      title: 'settings carry the version and, if present, a boolean digest',
      run(ctx) {
        const digest = ctx.settings.digest;
        ensure(digest === undefined || typeof digest === 'boolean', `digest is ${describe(digest)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'provenance/entry-shape',
      requirement: 'PROV-3',
      level: 'MUST',
      title: 'a cited result carries { provenance, sha256? } whose sources validate against the seed Provenance',
      async run(ctx) {
        const { result } = await citingCall(ctx);
        const entry = resultMeta(result, ctx.id);
        ctx.expectSeedShape(
          { result: result.structuredContent ?? {}, ...entry },
          'provenance',
          'ProvenanceWrapper',
          'the provenance entry',
        );
        ensure(entry !== undefined && 'provenance' in entry, `entry is ${describe(entry)}`);
      },
    },
    {
      id: 'provenance/digest',
      requirement: 'PROV-5',
      level: 'MUST',
      title: 'sha256, when sent, is the SHA-256 of the canonical structuredContent',
      async run(ctx) {
        const { result } = await citingCall(ctx);
        const sha = resultMeta(result, ctx.id)?.sha256;
        if (sha === undefined) return ctx.skip('the server sends no digest');
        ensure(isRecord(result.structuredContent), 'a digest without structuredContent');
        ensure(
          sha === canonicalHash(result.structuredContent),
          `sha256 ${describe(sha)} does not match the canonical structuredContent`,
        );
      },
    },
    {
      id: 'provenance/not-negotiated',
      requirement: 'PROV-4',
      level: 'MUST',
      title: 'a client that did not negotiate gets no result._meta[id]',
      async run(ctx) {
        const { tool, args } = await citingCall(ctx);
        const plain = await (await ctx.connect({})).callTool(tool.name, args);
        ensure(
          resultMeta(plain, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? ''} for a client that never advertised it`,
        );
      },
    },
  ],
};
