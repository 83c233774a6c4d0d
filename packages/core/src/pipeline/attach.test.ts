import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import type { ServerAttachment, ServerExtension } from '../contract/extension.js';
import type { Logger } from '../telemetry/logger.js';
import { MemoryStore } from '../store/memory-store.js';
import { extendServer as extendV1 } from '../sdk-v1/server.js';
import { extendServer as extendV2 } from '../sdk-v2/server.js';

function recorder(seen: ServerAttachment[], attach?: ServerExtension['attach']): ServerExtension {
  return {
    side: 'server',
    name: '@ext/starter',
    ids: ['io.github.mcp-ext/starter'],
    settings: { version: '1.0' },
    attach:
      attach ??
      ((host) => {
        seen.push(host);
      }),
  };
}

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { warn: (message) => lines.push(message) } };
}

const LINES = [
  [
    'v1',
    (composed: ReturnType<typeof composeServer>, store: MemoryStore) =>
      extendV1(new McpServerV1({ name: 's', version: '0' }), composed, { store }),
  ],
  [
    'v2',
    (composed: ReturnType<typeof composeServer>, store: MemoryStore) =>
      extendV2(new McpServer({ name: 's', version: '0' }), composed, { store }),
  ],
] as const;

describe.each(LINES)('ServerExtension.attach on SDK %s [CORE-29]', (_line, extend) => {
  it('runs once per composition and store, at extendServer, before any request', () => {
    const seen: ServerAttachment[] = [];
    const { logger } = capture();
    const composed = composeServer([recorder(seen)], { logger });
    const store = new MemoryStore();
    extend(composed, store);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.store).toBe(store);
    expect(seen[0]?.logger).toBe(logger);
    // A server per request (2026-07-28) on the same composition and store attaches nothing again.
    extend(composed, store);
    extend(composed, store);
    expect(seen).toHaveLength(1);
    const other = new MemoryStore();
    extend(composed, other);
    expect(seen.map((host) => host.store)).toEqual([store, other]);
  });

  it('logs a hook that throws or rejects, and extends the server anyway', async () => {
    const { logger, lines } = capture();
    const throwing = composeServer(
      [
        recorder([], () => {
          throw new Error('boom');
        }),
      ],
      { logger },
    );
    expect(() => extend(throwing, new MemoryStore())).not.toThrow();
    const rejecting = composeServer([recorder([], () => Promise.reject(new Error('later')))], { logger });
    expect(() => extend(rejecting, new MemoryStore())).not.toThrow();
    await expect
      .poll(() => lines)
      .toEqual([
        '@ext/starter: attach failed; the server serves without it',
        '@ext/starter: attach failed; the server serves without it',
      ]);
  });
});
