/**
 * The tracker's secrets: taken from the options or the environment, and
 * when neither gives one, made for this process only and said once through
 * the logger, naming the variable that fixes it.
 */
import { MemoryStore, type Logger } from '@ext/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeTracker } from './compose.js';
import { startReferenceOrigin } from './reference-origin.js';

function capture(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return { logger: { warn: (message) => warnings.push(message) }, warnings };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the session-state secret (TRACKER_SESSION_SECRET)', () => {
  it('warns once, naming the variable, when it makes one for this process', () => {
    vi.stubEnv('TRACKER_SESSION_SECRET', undefined);
    const { logger, warnings } = capture();
    composeTracker({ logger });
    const named = warnings.filter((warning) => warning.includes('TRACKER_SESSION_SECRET'));
    expect(named).toHaveLength(1);
    expect(named[0]).toContain('this process only');
  });

  it('says nothing when the environment or the options give it', () => {
    const { logger, warnings } = capture();
    vi.stubEnv('TRACKER_SESSION_SECRET', 'a-session-secret-of-thirty-two-bytes-or-more');
    composeTracker({ logger });
    vi.stubEnv('TRACKER_SESSION_SECRET', undefined);
    composeTracker({ logger, sessionSecret: 'another-session-secret-of-thirty-two-bytes' });
    expect(warnings.filter((warning) => warning.includes('TRACKER_SESSION_SECRET'))).toEqual([]);
  });
});

describe('the data-reference secret (TRACKER_REFS_SECRET)', () => {
  it('warns once, naming the variable, when it makes one for this process, and not when given', async () => {
    vi.stubEnv('TRACKER_REFS_SECRET', undefined);
    const { logger, warnings } = capture();
    const generated = await startReferenceOrigin(new MemoryStore(), { logger });
    await generated.close();
    expect(warnings.filter((warning) => warning.includes('TRACKER_REFS_SECRET'))).toHaveLength(1);
    vi.stubEnv('TRACKER_REFS_SECRET', 'a-refs-secret-of-thirty-two-bytes-or-more-0');
    const configured = await startReferenceOrigin(new MemoryStore(), { logger });
    await configured.close();
    expect(warnings.filter((warning) => warning.includes('TRACKER_REFS_SECRET'))).toHaveLength(1);
  });
});
