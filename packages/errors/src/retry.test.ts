import {
  ConfigurationError,
  ExtensionError,
  WireError,
  type ErrorCategory,
  type StructuredError,
  type ToolResult,
} from '@ext/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { toolError } from './classes.js';
import {
  DEFAULT_RETRY_POLICY,
  getStructuredError,
  isRetryable,
  resolveRetryPolicy,
  retryDelayMs,
  withRetry,
} from './retry.js';
import { ERRORS_ID } from './schema.js';

function failed(error: StructuredError): ToolResult {
  return { content: [{ type: 'text', text: error.message }], isError: true, _meta: { [ERRORS_ID]: error } };
}

const ok: ToolResult = { content: [{ type: 'text', text: 'done' }] };

function structured(category: ErrorCategory, extra: Partial<StructuredError> = {}): StructuredError {
  return { code: 'X', message: 'x', category, ...extra };
}

/** A sleep that records the waits and returns at once. */
function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

describe('getStructuredError (ERR-15)', () => {
  it('reads _meta[id] of a failed result', () => {
    const error = structured('transient');
    expect(getStructuredError(failed(error))).toEqual(error);
  });

  it('ignores _meta[id] on a result without isError, and invalid payloads', () => {
    expect(getStructuredError({ ...failed(structured('transient')), isError: false })).toBeUndefined();
    expect(getStructuredError(failed({ code: 'X', message: 'x', category: 'fatal' as ErrorCategory }))).toBeUndefined();
    expect(getStructuredError({ content: [], isError: true })).toBeUndefined();
    expect(getStructuredError(ok)).toBeUndefined();
  });

  it('reads data of a WireError, of any error with a data field, and local ExtensionErrors', () => {
    const error = structured('auth_required');
    expect(getStructuredError(new WireError(-31000, 'x', error))).toEqual(error);
    expect(getStructuredError(Object.assign(new Error('McpError'), { code: -31000, data: error }))).toEqual(error);
    expect(getStructuredError(new WireError(-32602, 'x', { nope: true }))).toBeUndefined();
    expect(getStructuredError(toolError.rateLimited({ message: 'm', retryAfterSeconds: 3 }))).toMatchObject({
      category: 'rate_limited',
      retry_after_seconds: 3,
    });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const out = getStructuredError(value);
        expect(out === undefined || typeof out.code === 'string').toBe(true);
      }),
    );
  });
});

describe('isRetryable', () => {
  it.each([
    ['transient', true],
    ['rate_limited', true],
    ['permanent', false],
    ['invalid_input', false],
    ['auth_required', false],
  ] as const)('%s -> %s', (category, expected) => {
    expect(isRetryable(failed(structured(category)))).toBe(expected);
  });

  it('is false when nothing structured is there', () => {
    expect(isRetryable(new Error('x'))).toBe(false);
    expect(isRetryable(ok)).toBe(false);
  });
});

describe('retryDelayMs (ERR-17, ERR-18)', () => {
  const policy = DEFAULT_RETRY_POLICY;

  it('doubles from the base, with equal jitter', () => {
    expect(retryDelayMs(1, structured('transient'), policy, 0)).toBe(250);
    expect(retryDelayMs(1, structured('transient'), policy, 0.999999)).toBe(500);
    expect(retryDelayMs(2, structured('transient'), policy, 0)).toBe(500);
    expect(retryDelayMs(3, structured('transient'), policy, 0)).toBe(1000);
  });

  it('never waits less than retry_after_seconds', () => {
    expect(retryDelayMs(1, structured('rate_limited', { retry_after_seconds: 7 }), policy, 0)).toBe(7000);
  });

  it('caps at maxDelayMs, and gives up when the server asks for longer', () => {
    expect(retryDelayMs(40, structured('transient'), policy, 0.999999)).toBe(30_000);
    expect(retryDelayMs(40, structured('transient'), policy, 0)).toBe(15_000);
    expect(retryDelayMs(1, structured('rate_limited', { retry_after_seconds: 31 }), policy, 0)).toBeUndefined();
  });

  it('never schedules a retry for permanent, invalid_input or auth_required (ERR-16)', () => {
    for (const category of ['permanent', 'invalid_input', 'auth_required'] as const) {
      expect(retryDelayMs(1, structured(category), policy, 0.5)).toBeUndefined();
    }
  });

  it('stays within [max(retry_after, 0), maxDelayMs] for any input', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 120_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.constantFrom('transient' as const, 'rate_limited' as const),
        (attempt, retryAfter, baseDelayMs, maxDelayMs, random, category) => {
          const error = structured(category, retryAfter === undefined ? {} : { retry_after_seconds: retryAfter });
          const delay = retryDelayMs(attempt, error, { maxAttempts: 3, baseDelayMs, maxDelayMs }, random);
          const floor = (retryAfter ?? 0) * 1000;
          if (floor > maxDelayMs) expect(delay).toBeUndefined();
          else {
            expect(delay).toBeGreaterThanOrEqual(floor);
            expect(delay).toBeLessThanOrEqual(maxDelayMs);
          }
        },
      ),
    );
  });
});

describe('withRetry', () => {
  it.each(['transient', 'rate_limited'] as const)(
    'retries %s until success, passing the attempt number',
    async (category) => {
      const { waits, sleep } = recordingSleep();
      const attempts: number[] = [];
      const result = await withRetry(
        (attempt) => {
          attempts.push(attempt);
          return attempt < 3 ? failed(structured(category)) : ok;
        },
        { sleep, random: () => 0 },
      );
      expect(result).toBe(ok);
      expect(attempts).toEqual([1, 2, 3]);
      expect(waits).toEqual([250, 500]);
    },
  );

  it.each(['permanent', 'invalid_input'] as const)('never retries %s (ERR-16)', async (category) => {
    const fn = vi.fn(() => failed(structured(category)));
    const result = await withRetry(fn, { sleep: () => Promise.resolve() });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(getStructuredError(result)?.category).toBe(category);
  });

  it('stops at maxAttempts and returns the last failure as fn produced it (ERR-18)', async () => {
    const fn = vi.fn((attempt: number) => failed(structured('transient', { code: `FAIL_${attempt}` })));
    const result = await withRetry(fn, { maxAttempts: 4, sleep: () => Promise.resolve() });
    expect(fn).toHaveBeenCalledTimes(4);
    expect(getStructuredError(result)?.code).toBe('FAIL_4');
  });

  it('rethrows the last thrown error when retries end', async () => {
    const thrown = new WireError(-31000, 'busy', structured('transient'));
    const fn = vi.fn(() => Promise.reject(thrown));
    await expect(withRetry(fn, { maxAttempts: 2, sleep: () => Promise.resolve() })).rejects.toBe(thrown);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('retries a thrown structured error and returns the later success', async () => {
    const result = await withRetry(
      (attempt) => {
        if (attempt === 1) throw toolError.transient({ message: 'busy' });
        return ok;
      },
      { sleep: () => Promise.resolve() },
    );
    expect(result).toBe(ok);
  });

  it('does not retry failures without a structured error (a peer lacking the extension)', async () => {
    const fn = vi.fn(() => ({ content: [{ type: 'text', text: 'failed' }], isError: true }));
    await withRetry(fn, { sleep: () => Promise.resolve() });
    expect(fn).toHaveBeenCalledTimes(1);
    const boom = new Error('network');
    await expect(withRetry(() => Promise.reject(boom))).rejects.toBe(boom);
  });

  it('waits at least retry_after_seconds (ERR-17)', async () => {
    const { waits, sleep } = recordingSleep();
    await withRetry(
      (attempt) => (attempt === 1 ? failed(structured('rate_limited', { retry_after_seconds: 12 })) : ok),
      {
        sleep,
        random: () => 0,
      },
    );
    expect(waits).toEqual([12_000]);
  });

  it('gives up instead of retrying early when retry_after exceeds maxDelayMs (ERR-17)', async () => {
    const fn = vi.fn(() => failed(structured('rate_limited', { retry_after_seconds: 60 })));
    const { waits, sleep } = recordingSleep();
    await withRetry(fn, { sleep, maxDelayMs: 10_000 });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(waits).toEqual([]);
  });

  it('reports each retry through onRetry', async () => {
    const events: unknown[] = [];
    await withRetry((attempt) => (attempt === 1 ? failed(structured('transient')) : ok), {
      sleep: () => Promise.resolve(),
      random: () => 0,
      onRetry: (event) => events.push(event),
    });
    expect(events).toEqual([{ attempt: 1, delayMs: 250, error: structured('transient') }]);
  });

  describe('auth_required (ERR-19)', () => {
    it('is not retried without onAuthRequired', async () => {
      const fn = vi.fn(() => failed(structured('auth_required')));
      await withRetry(fn);
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it('is retried once, at once, when onAuthRequired resolves true', async () => {
      const onAuthRequired = vi.fn(() => Promise.resolve(true));
      const { waits, sleep } = recordingSleep();
      const fn = vi.fn(() => failed(structured('auth_required')));
      await withRetry(fn, { onAuthRequired, sleep, maxAttempts: 5 });
      expect(fn).toHaveBeenCalledTimes(2);
      expect(onAuthRequired).toHaveBeenCalledTimes(1);
      expect(onAuthRequired).toHaveBeenCalledWith(structured('auth_required'), 1);
      expect(waits).toEqual([]);
    });

    it('is not retried when onAuthRequired resolves false', async () => {
      const fn = vi.fn(() => failed(structured('auth_required')));
      await withRetry(fn, { onAuthRequired: () => false });
      expect(fn).toHaveBeenCalledTimes(1);
    });

    it('succeeds after the refresh', async () => {
      const result = await withRetry((attempt) => (attempt === 1 ? failed(structured('auth_required')) : ok), {
        onAuthRequired: () => true,
      });
      expect(result).toBe(ok);
    });
  });

  it('is abortable: a signal aborted during the wait ends the loop with its reason', async () => {
    const controller = new AbortController();
    const fn = vi.fn(() => failed(structured('transient')));
    const pending = withRetry(fn, { signal: controller.signal, baseDelayMs: 60_000, maxDelayMs: 60_000 });
    await vi.waitFor(() => {
      expect(fn).toHaveBeenCalledTimes(1);
    });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const fn = vi.fn(() => ok);
    await expect(withRetry(fn, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(fn).not.toHaveBeenCalled();
  });

  it('an injected sleep that ignores the signal still ends the loop after it', async () => {
    const controller = new AbortController();
    const fn = vi.fn(() => failed(structured('transient')));
    await expect(
      withRetry(fn, {
        signal: controller.signal,
        sleep: () => {
          controller.abort(new Error('aborted during sleep'));
          return Promise.resolve();
        },
      }),
    ).rejects.toThrow('aborted during sleep');
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('keeps per-call data stable: fn is the only thing run per attempt (ERR-20)', async () => {
    const key = 'idem-123';
    const sent: string[] = [];
    await withRetry(
      (attempt) => {
        sent.push(key);
        return attempt < 3 ? failed(structured('transient')) : ok;
      },
      { sleep: () => Promise.resolve() },
    );
    expect(new Set(sent)).toEqual(new Set([key]));
  });

  it('never exceeds maxAttempts nor retries a non-retryable category, for any sequence of outcomes', async () => {
    const outcome = fc.constantFrom<ErrorCategory | 'ok'>(
      'ok',
      'transient',
      'rate_limited',
      'permanent',
      'invalid_input',
      'auth_required',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(outcome, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (script, maxAttempts, refresh) => {
          let calls = 0;
          let authCalls = 0;
          await withRetry(
            (attempt) => {
              calls = attempt;
              const next = script[Math.min(attempt - 1, script.length - 1)] ?? 'ok';
              return next === 'ok' ? ok : failed(structured(next));
            },
            { maxAttempts, sleep: () => Promise.resolve(), onAuthRequired: () => ((authCalls += 1), refresh) },
          );
          expect(calls).toBeLessThanOrEqual(maxAttempts);
          expect(authCalls).toBeLessThanOrEqual(1);
          const last = script[Math.min(calls - 1, script.length - 1)] ?? 'ok';
          // It stopped on success, on a category that is never retried, or at a cap.
          const stoppedLegitimately =
            last === 'ok' ||
            last === 'permanent' ||
            last === 'invalid_input' ||
            last === 'auth_required' ||
            calls === maxAttempts;
          expect(stoppedLegitimately).toBe(true);
          for (let i = 0; i < calls - 1; i += 1) {
            expect(['permanent', 'invalid_input', 'ok']).not.toContain(script[Math.min(i, script.length - 1)]);
          }
        },
      ),
    );
  });
});

describe('resolveRetryPolicy', () => {
  it('fills in the defaults', () => {
    expect(resolveRetryPolicy()).toEqual({ maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000 });
  });

  it.each([
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ maxAttempts: 1.5 }, 'maxAttempts'],
    [{ baseDelayMs: -1 }, 'baseDelayMs'],
    [{ maxDelayMs: Number.POSITIVE_INFINITY }, 'maxDelayMs'],
    [{ sleep: 5 }, 'sleep'],
  ])('refuses %o naming the option', (policy, name) => {
    expect(() => resolveRetryPolicy(policy as never)).toThrow(ConfigurationError);
    expect(() => resolveRetryPolicy(policy as never)).toThrow(name);
  });

  it('withRetry validates before the first attempt', async () => {
    const fn = vi.fn(() => ok);
    await expect(withRetry(fn, { maxAttempts: 0 })).rejects.toThrow('maxAttempts');
    expect(fn).not.toHaveBeenCalled();
    expect(ExtensionError.isInstance(new ConfigurationError('X', 'y'))).toBe(false);
  });
});
