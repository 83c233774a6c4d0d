import { existsSync, readdirSync } from 'node:fs';
import { PIPELINE_STAGES, type ToolResult } from '@ext/core';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { describe, expect, it } from 'vitest';
import { inProcessPair } from './full-stack-pairs.js';
import { ADAPTER, BARE, buildStack, FULL, LAYERS, parseStackArgument, stackArgument } from './stack.js';

const PACKAGES = new URL('../../../packages/', import.meta.url);

/** Packages with a server half: every `packages/<name>/src/server.ts`. */
function extensionPackages(): string[] {
  return readdirSync(PACKAGES)
    .filter((name) => existsSync(new URL(`${name}/src/server.ts`, PACKAGES)))
    .map((name) => `@ext/${name}`)
    .sort();
}

describe('the full stack', () => {
  it('composes every extension package in packages/ with a server half, once each', () => {
    const names = LAYERS.map((layer) => layer.name);
    expect([...names].sort()).toEqual(extensionPackages());
    expect(new Set(names).size).toBe(names.length);
  });

  it('lists the pipeline stages in pipeline order, so adding layers one at a time follows the pipeline', () => {
    const staged = LAYERS.map((layer) => layer.name.slice('@ext/'.length)).filter((name) =>
      (PIPELINE_STAGES as readonly string[]).includes(name),
    );
    // `policy` is a deployment's own stage (the gateway's rules), owned by no extension package.
    expect(staged).toEqual(PIPELINE_STAGES.filter((stage) => stage !== 'policy'));
  });

  it('composes with every prefix of the layers (no layer needs a later one)', async () => {
    for (let count = 1; count <= LAYERS.length; count++) {
      const built = buildStack({ kind: 'first', count });
      expect(built.names).toHaveLength(count);
      await built.close();
    }
  });

  it('names every stack on a command line and reads it back (the HTTP server process gets its stack that way)', () => {
    for (const stack of [BARE, ADAPTER, FULL, { kind: 'first', count: 3 } as const])
      expect(parseStackArgument(stackArgument(stack))).toEqual(stack);
    expect(parseStackArgument('everything')).toBeUndefined();
    expect(parseStackArgument(undefined)).toBeUndefined();
  });

  it.each(['v1', 'v2'] as const)(
    'answers the echo tool through every layer, all negotiated, on SDK %s in process',
    async (line) => {
      // inProcessPair throws unless every package is negotiated and the first call echoes.
      const pair = await inProcessPair(line, FULL);
      try {
        const results = (await Promise.all([pair.call(), pair.call()])) as ToolResult[];
        for (const result of results) {
          expect(result.content[0]?.text).toBe('hello');
          // The idempotency layer ran: each call carried a fresh key and executed.
          expect(result._meta?.[IDEMPOTENCY_ID]).toMatchObject({ was_replay: false });
        }
      } finally {
        await pair.close();
      }
    },
  );
});
