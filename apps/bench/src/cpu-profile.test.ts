// Where a profiled process spent its CPU: self time per function and package, and Node's frames counted to their caller.
import { describe, expect, it } from 'vitest';
import { packageOf, summarizeProfile, type CpuProfile } from './cpu-profile.js';

const CLIENT =
  'file:///repo/node_modules/.pnpm/@modelcontextprotocol+client@2.4.0/node_modules/@modelcontextprotocol/client/dist/index.mjs';
const ZOD = 'file:///repo/node_modules/.pnpm/zod@4.1.0/node_modules/zod/v4/core/schemas.js';
const GATEWAY = 'file:///repo/packages/gateway/dist/chunk-ABC.js';

function frame(functionName: string, url: string, lineNumber = 0) {
  return { functionName, url, lineNumber };
}

/**
 * root -> gateway `callTool` -> client `_send` -> node `writev` and zod `parse`;
 * root -> `(idle)`; root -> node `socketOnData` (no caller outside Node).
 */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6, 7] },
    { id: 2, callFrame: frame('callTool', GATEWAY, 9), children: [3] },
    { id: 3, callFrame: frame('_send', CLIENT, 99), children: [4, 5] },
    { id: 4, callFrame: frame('writev', 'node:internal/stream_base_commons'), children: [] },
    { id: 5, callFrame: frame('parse', ZOD), children: [] },
    { id: 6, callFrame: frame('(idle)', ''), children: [] },
    { id: 7, callFrame: frame('socketOnData', 'node:_http_client', 536), children: [] },
  ],
  samples: [2, 3, 3, 4, 5, 5, 6, 6, 6, 6, 7],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('the CPU profile summary', () => {
  it('names the package of npm, workspace and Node frames', () => {
    expect(packageOf(CLIENT)).toBe('@modelcontextprotocol/client');
    expect(packageOf(GATEWAY)).toBe('@ext/gateway');
    expect(packageOf('node:_http_client')).toBe('node:internal');
    expect(packageOf('')).toBe('(native or V8)');
  });

  it('sums self time per function and per package, idle apart', () => {
    const summary = summarizeProfile(PROFILE);
    expect([summary.totalMs, summary.busyMs]).toEqual([11, 7]);
    expect(summary.functions[0]).toEqual({
      name: '_send index.mjs:100 [@modelcontextprotocol/client]',
      selfMs: 2,
      share: 2 / 11,
    });
    expect(summary.packages.map((entry) => [entry.name, entry.selfMs])).toEqual([
      ['@modelcontextprotocol/client', 2],
      ['node:internal', 2],
      ['zod', 2],
      ['@ext/gateway', 1],
    ]);
  });

  it("counts Node's frames and zod's to the package that called them, and the rest to Node", () => {
    const callers = summarizeProfile(PROFILE).callers.map((entry) => [entry.name, entry.selfMs]);
    expect(callers).toEqual([
      ['@modelcontextprotocol/client', 5],
      ['@ext/gateway', 1],
      ['node:internal', 1],
    ]);
  });
});
