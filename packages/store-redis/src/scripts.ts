/** The Lua scripts the store runs on Redis (compare-and-set, increment with TTL), and how it runs them. */
import { createHash } from 'node:crypto';
import type { RedisClient } from './connection.js';

/**
 * Compare-and-set on canonical JSON: values are stored canonically, so the
 * comparison is string equality. ARGV: mode (`absent` | `equal`), expected,
 * next, ttl in ms (empty = none).
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if ARGV[4] ~= '' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
end
return 1
`;

/** INCRBY that applies the TTL only when it creates the counter. ARGV: by, ttl in ms (empty = none). */
const INCREMENT = `
local created = redis.call('EXISTS', KEYS[1]) == 0
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if created and ARGV[2] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value
`;

export interface Script {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

export const SCRIPTS = { compareAndSet: script(COMPARE_AND_SET), increment: script(INCREMENT) } as const;

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * EVALSHA first (the script body is not resent each call); EVAL once after
 * a NOSCRIPT reply, which also loads the script for the next call.
 */
export async function runScript(client: RedisClient, which: Script, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await client.evalSha(which.sha1, { keys, arguments: args });
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return client.eval(which.source, { keys, arguments: args });
  }
}
