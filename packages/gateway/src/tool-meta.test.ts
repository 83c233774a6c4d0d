// The cost policy as the cost extension reads it: `quota.window` reaches the tool's declaration (cost COST-20).
import { composeServer } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { COST_ID } from '@ext/cost';
import { costServer } from '@ext/cost/server';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config/load.js';
import { resolveToolPolicy } from './policy/resolve.js';
import { policyToolMeta } from './tool-meta.js';

/** The cost declaration a tool carries once the cost extension normalized what the policy says. */
function declared(quota: string): unknown {
  const config = parseConfig(`upstreams:\n  fs: { command: npx }\npolicy:\n  send: { cost: { quota: ${quota} } }\n`);
  const policy = resolveToolPolicy({ config, manifests: [], tool: { name: 'send' } });
  if (policy === undefined) throw new Error('the tool was not resolved');
  const composed = composeServer([costServer()], { logger: silentLogger });
  return composed.decorateTool({ name: 'send', _meta: policyToolMeta(policy) })._meta[COST_ID];
}

describe('policy.<glob>.cost.quota.window', () => {
  it('is the cost extension default (sliding) when the policy names none', () => {
    expect(declared('{ limit: 5, windowSeconds: 60 }')).toMatchObject({
      quota: { limit: 5, window_seconds: 60, window: 'sliding' },
    });
  });

  it('passes "fixed" through to the declaration', () => {
    expect(declared('{ limit: 5, windowSeconds: 60, window: fixed }')).toMatchObject({
      quota: { limit: 5, window_seconds: 60, window: 'fixed' },
    });
  });
});
