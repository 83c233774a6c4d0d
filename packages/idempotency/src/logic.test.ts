import { canonicalJson, metaPointer, withResultMeta, type JsonValue } from '@ext/core/kit';
import { ConfigurationError, type ToolInfo, type ToolResult } from '@ext/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetWindow,
  callFingerprint,
  isValidIdempotencyKey,
  parseIdempotencyMeta,
  participates,
  readAuthorToolMeta,
  readResultMeta,
  recordKey,
  storableResult,
} from './logic.js';
import {
  completeRecord,
  decide,
  inFlightRecord,
  parseRecord,
  releaseRecord,
  type IdempotencyRecord,
} from './records.js';
import { IDEMPOTENCY_ID, IdempotencyRequestMetaSchema, IdempotencyResultMetaSchema } from './schema.js';
import { seedValidators } from '@ext/core/testing';

const KEY_REGEX = /^[a-zA-Z0-9_\-:.]{1,128}$/;
const KEY_ALPHABET = ['a', 'b', 'X', 'Z', '0', '9', '_', '-', ':', '.', ' ', '/', '+', 'é', '\n', '\u0000', '😀'];
const LIMITS = { defaultTtlSeconds: 86_400, maxTtlSeconds: 604_800 };

const seed = seedValidators();
const seedCheck =
  (definition: string) =>
  (value: unknown): boolean =>
    seed.check('transactions', definition)(value).valid;

describe('idempotency key validation (IDEM-2)', () => {
  it('never throws on arbitrary input and accepts only strings', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const valid = isValidIdempotencyKey(input);
        expect(typeof valid).toBe('boolean');
        if (valid) expect(typeof input).toBe('string');
      }),
    );
  });

  it('agrees with the seed pattern on strings near and far from valid', () => {
    const nearKeys = fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), maxLength: 140 });
    fc.assert(
      fc.property(fc.oneof(nearKeys, fc.string(), fc.string({ unit: 'binary' })), (input) => {
        expect(isValidIdempotencyKey(input)).toBe(KEY_REGEX.test(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts every key the seed pattern generates, including the 128-character bound', () => {
    fc.assert(fc.property(fc.stringMatching(KEY_REGEX), (key) => isValidIdempotencyKey(key)));
    expect(isValidIdempotencyKey('a'.repeat(128))).toBe(true);
    expect(isValidIdempotencyKey('a'.repeat(129))).toBe(false);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('abc\n')).toBe(false);
  });
});

describe('params._meta parsing (IDEM-4, IDEM-5)', () => {
  const id = IDEMPOTENCY_ID;
  const keyPointer = '/_meta/io.github.mcp-ext~1idempotency/idempotency_key';

  it('names the field of the first violation', () => {
    expect(metaPointer(id, 'idempotency_key')).toBe(keyPointer);
    expect(parseIdempotencyMeta({ idempotency_key: 'no spaces' }, id, LIMITS)).toMatchObject({
      ok: false,
      pointer: keyPointer,
    });
    expect(parseIdempotencyMeta({}, id, LIMITS)).toMatchObject({ ok: false, pointer: keyPointer });
    expect(parseIdempotencyMeta({ idempotency_key: 42 }, id, LIMITS)).toMatchObject({ ok: false, pointer: keyPointer });
    expect(parseIdempotencyMeta('k-1', id, LIMITS)).toMatchObject({
      ok: false,
      pointer: '/_meta/io.github.mcp-ext~1idempotency',
    });
    for (const ttl of [0, -5, 1.5, '60', null, Number.NaN]) {
      expect(parseIdempotencyMeta({ idempotency_key: 'k-1', idempotency_ttl_seconds: ttl }, id, LIMITS)).toMatchObject({
        ok: false,
        pointer: '/_meta/io.github.mcp-ext~1idempotency/idempotency_ttl_seconds',
      });
    }
  });

  it('applies the default TTL and lowers a TTL above the maximum', () => {
    expect(parseIdempotencyMeta({ idempotency_key: 'k-1' }, id, LIMITS)).toEqual({
      ok: true,
      value: { key: 'k-1', ttlSeconds: 86_400 },
    });
    expect(parseIdempotencyMeta({ idempotency_key: 'k-1', idempotency_ttl_seconds: 60 }, id, LIMITS)).toEqual({
      ok: true,
      value: { key: 'k-1', ttlSeconds: 60 },
    });
    expect(parseIdempotencyMeta({ idempotency_key: 'k-1', idempotency_ttl_seconds: 10 ** 12 }, id, LIMITS)).toEqual({
      ok: true,
      value: { key: 'k-1', ttlSeconds: 604_800 },
    });
  });

  it('never throws; whatever it accepts is valid against the seed schema, and it agrees with it for positive TTLs', () => {
    const validate = seedCheck('IdempotentRequest');
    const meta = fc.oneof(
      fc.anything(),
      fc.record(
        {
          idempotency_key: fc.oneof(
            fc.stringMatching(KEY_REGEX),
            fc.string({ unit: fc.constantFrom(...KEY_ALPHABET), maxLength: 130 }),
            fc.anything(),
          ),
          idempotency_ttl_seconds: fc.oneof(fc.integer({ min: 1 }), fc.double(), fc.anything()),
          extra: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(meta, (raw) => {
        const parsed = parseIdempotencyMeta(raw, id, LIMITS);
        if (parsed.ok) {
          expect(validate(raw)).toBe(true);
          expect(parsed.value.ttlSeconds).toBeGreaterThanOrEqual(1);
          expect(parsed.value.ttlSeconds).toBeLessThanOrEqual(LIMITS.maxTtlSeconds);
        }
        const ttl = (raw as { idempotency_ttl_seconds?: unknown } | null)?.idempotency_ttl_seconds;
        // JSON carries no Infinity; Ajv counts it as an integer, the parser (rightly) does not.
        const positiveOrAbsent = ttl === undefined || (typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 1);
        if (typeof raw === 'object' && raw !== null && positiveOrAbsent) expect(parsed.ok).toBe(validate(raw));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('wire shapes against the seed schema', () => {
  it('the TypeBox request and result schemas describe payloads the seed schema accepts', () => {
    const request = seedCheck('IdempotentRequest');
    const response = seedCheck('IdempotencyResponse');
    const ours = new Ajv2020({ strict: false });
    addFormats.default(ours);
    const ourRequest = ours.compile(IdempotencyRequestMetaSchema);
    const ourResponse = ours.compile(IdempotencyResultMetaSchema);
    const sample = { idempotency_key: 'op-2026-03-15-a1b2c3d4', idempotency_ttl_seconds: 3600 };
    expect(ourRequest(sample) && request(sample)).toBe(true);
    const result = withResultMeta({ content: [] }, IDEMPOTENCY_ID, {
      idempotency_key: sample.idempotency_key,
      was_replay: true,
      original_timestamp: new Date(0).toISOString(),
    });
    const meta = result._meta?.[IDEMPOTENCY_ID];
    expect(ourResponse(meta) && response(meta)).toBe(true);
  });
});

describe('fingerprints and store keys (IDEM-6, IDEM-9)', () => {
  it('a fingerprint ignores key order and separates different arguments or tools', () => {
    expect(callFingerprint('t', { a: 1, b: [1, 2] })).toBe(callFingerprint('t', { b: [1, 2], a: 1 }));
    expect(callFingerprint('t', { a: 1 })).not.toBe(callFingerprint('t', { a: 2 }));
    expect(callFingerprint('t', { a: 1 })).not.toBe(callFingerprint('u', { a: 1 }));
  });

  it('record keys never collide across principals, tools and keys', () => {
    const part = fc.string({ unit: fc.constantFrom('a', ':', '%', '3', 'A', '/'), maxLength: 6 });
    const key = fc.stringMatching(/^[a:.]{1,4}$/);
    fc.assert(
      fc.property(part, part, key, part, part, key, (p1, t1, k1, p2, t2, k2) => {
        const same = p1 === p2 && t1 === t2 && k1 === k2;
        expect(recordKey('idem', p1, t1, k1) === recordKey('idem', p2, t2, k2)).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decision table (IDEM-7..IDEM-11)', () => {
  const fp = callFingerprint('t', { a: 1 });
  const other = callFingerprint('t', { a: 2 });
  const claim = inFlightRecord(fp, 'c1', '2026-01-01T00:00:00.000Z');
  const done = completeRecord(claim, 'c1', { content: [{ type: 'text', text: 'ok' }] })!;

  it('claims an absent or released key', () => {
    expect(decide(undefined, fp)).toEqual({ kind: 'claim', expected: undefined });
    const released = releaseRecord(claim, 'c1')!;
    expect(decide(released, fp)).toEqual({ kind: 'claim', expected: released });
  });

  it('waits on the same call in flight, replays it once completed, and refuses other arguments either way', () => {
    expect(decide(claim, fp).kind).toBe('wait');
    expect(decide(done, fp)).toEqual({ kind: 'replay', record: done });
    expect(decide(claim, other).kind).toBe('conflict');
    expect(decide(done, other).kind).toBe('conflict');
  });

  it('never throws on arbitrary stored values and reads only well-formed records', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const decision = decide(raw, fp);
        if (raw !== undefined && parseRecord(raw) === undefined) expect(decision.kind).toBe('unreadable');
      }),
    );
  });

  it('only the claimant completes or releases its claim, and only while in flight', () => {
    expect(completeRecord(claim, 'c2', { content: [] })).toBeUndefined();
    expect(releaseRecord(claim, 'c2')).toBeUndefined();
    expect(completeRecord(done, 'c1', { content: [] })).toBeUndefined();
    expect(releaseRecord(done, 'c1')).toBeUndefined();
    expect(completeRecord(undefined, 'c1', { content: [] })).toBeUndefined();
  });
});

/**
 * A model of the store: every operation is atomic, compare-and-set compares
 * canonical JSON (as every Store does). Workers run the server's protocol
 * one step at a time in an order fast-check picks, with lease expiries
 * (a crashed or stalled claimant) and failing executions mixed in.
 */
describe('record state machine under any interleaving (IDEM-7, IDEM-8, IDEM-11, IDEM-15)', () => {
  type Phase =
    | { name: 'read' }
    | { name: 'claim'; expected: IdempotencyRecord | undefined }
    | { name: 'execute'; claimId: string }
    | { name: 'done'; outcome: 'replay' | 'completed' | 'failed' | 'conflict' | 'lost' };

  interface Worker {
    fingerprint: string;
    phase: Phase;
    fails: boolean;
  }

  const event = fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record({ kind: fc.constant('step' as const), worker: fc.nat({ max: 5 }), fails: fc.boolean() }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
  );

  it('never lets two executions complete for one key, and never executes after a completion', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 120 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (events, sameCall) => {
          const fpA = callFingerprint('t', { n: 1 });
          const fpB = callFingerprint('t', { n: 2 });
          let stored: JsonValue | undefined;
          let completions = 0;
          let completedFingerprint: string | undefined;
          let claims = 0;
          let expiries = 0;
          let concurrent = 0;
          let maxConcurrent = 0;
          const workers: Worker[] = sameCall.map((same) => ({
            fingerprint: same ? fpA : fpB,
            phase: { name: 'read' },
            fails: false,
          }));
          const cas = (expected: JsonValue | undefined, next: JsonValue): boolean => {
            const matches =
              expected === undefined
                ? stored === undefined
                : stored !== undefined && canonicalJson(stored) === canonicalJson(expected);
            if (matches) stored = next;
            return matches;
          };

          const step = (worker: Worker, fails: boolean): void => {
            const phase = worker.phase;
            switch (phase.name) {
              case 'read': {
                const decision = decide(stored, worker.fingerprint);
                if (decision.kind === 'replay') {
                  expect(decision.record.fingerprint).toBe(worker.fingerprint);
                  worker.phase = { name: 'done', outcome: 'replay' };
                } else if (decision.kind === 'conflict') worker.phase = { name: 'done', outcome: 'conflict' };
                else if (decision.kind === 'claim') worker.phase = { name: 'claim', expected: decision.expected };
                else expect(decision.kind).toBe('wait');
                return;
              }
              case 'claim': {
                const claimId = `c${++claims}`;
                const next = inFlightRecord(worker.fingerprint, claimId, 't0') as unknown as JsonValue;
                if (cas(phase.expected as unknown as JsonValue | undefined, next)) {
                  // The property under test: once a result is recorded, nobody executes again.
                  expect(completions).toBe(0);
                  concurrent += 1;
                  maxConcurrent = Math.max(maxConcurrent, concurrent);
                  worker.fails = fails;
                  worker.phase = { name: 'execute', claimId };
                } else worker.phase = { name: 'read' };
                return;
              }
              case 'execute': {
                concurrent -= 1;
                const next = worker.fails
                  ? releaseRecord(stored, phase.claimId)
                  : completeRecord(stored, phase.claimId, { content: [{ type: 'text', text: phase.claimId }] });
                if (next === undefined || !cas(stored, next as unknown as JsonValue)) {
                  worker.phase = { name: 'done', outcome: 'lost' };
                  return;
                }
                if (!worker.fails) {
                  completions += 1;
                  completedFingerprint = worker.fingerprint;
                }
                worker.phase = { name: 'done', outcome: worker.fails ? 'failed' : 'completed' };
                return;
              }
              case 'done':
                return;
            }
          };

          for (const item of events) {
            if (item.kind === 'expire') {
              // A lapsed lease: the store drops an in-flight claim (never a completed record).
              if (parseRecord(stored)?.state === 'in_flight') {
                stored = undefined;
                expiries += 1;
              }
            } else step(workers[item.worker]!, item.fails);
          }
          // Let everyone finish, in order, without further failures.
          for (let round = 0; round < 10; round += 1) for (const worker of workers) step(worker, false);

          expect(completions).toBeLessThanOrEqual(1);
          if (expiries === 0) expect(maxConcurrent).toBeLessThanOrEqual(1);
          for (const worker of workers) {
            if (worker.phase.name === 'done' && worker.phase.outcome === 'replay')
              expect(worker.fingerprint).toBe(completedFingerprint);
          }
          const final = parseRecord(stored);
          if (completions === 1) expect(final?.state).toBe('completed');
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('record budget window (IDEM-13)', () => {
  it('every record still alive was counted in the current or the previous bucket', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 7 }),
        fc.nat({ max: 10 ** 9 }),
        fc.nat(),
        (windowMs, createdAt, age) => {
          const lifetime = age % windowMs; // a record lives at most one window
          const created = budgetWindow(createdAt, windowMs);
          const now = budgetWindow(createdAt + lifetime, windowMs);
          expect([now.current, now.previous]).toContain(created.current);
          expect(now.secondsToNextBucket).toBeGreaterThanOrEqual(1);
        },
      ),
    );
  });
});

describe('participation rule (IDEM-14)', () => {
  const tool = (name: string, extra: Partial<ToolInfo> = {}): ToolInfo => ({ name, ...extra });
  const id = IDEMPOTENCY_ID;

  it('by default: tools that are not read-only, unless the author declared otherwise', () => {
    expect(participates(tool('create'), 'mutating', id)).toBe(true);
    expect(participates(tool('read', { annotations: { readOnlyHint: true } }), 'mutating', id)).toBe(false);
    expect(
      participates(
        tool('read', { annotations: { readOnlyHint: true }, _meta: { [id]: { idempotent_capable: true } } }),
        'mutating',
        id,
      ),
    ).toBe(true);
    expect(participates(tool('create', { _meta: { [id]: { idempotent_capable: false } } }), 'mutating', id)).toBe(
      false,
    );
  });

  it('IDEM-14a: by default a destructive tool takes part only when its author says a repeat does nothing new', () => {
    const destructive = { readOnlyHint: false, destructiveHint: true };
    expect(participates(tool('purge', { annotations: destructive }), 'mutating', id)).toBe(false);
    expect(
      participates(tool('delete', { annotations: { ...destructive, idempotentHint: true } }), 'mutating', id),
    ).toBe(true);
    expect(
      participates(
        tool('purge', { annotations: destructive, _meta: { [id]: { idempotent_capable: true } } }),
        'mutating',
        id,
      ),
    ).toBe(true);
    expect(participates(tool('close', { annotations: { destructiveHint: false } }), 'mutating', id)).toBe(true);
    // Other rules are the server's explicit choice.
    expect(participates(tool('purge', { annotations: destructive }), 'all', id)).toBe(true);
  });

  it('"all", a list of names, or a function', () => {
    const readOnly = tool('read', { annotations: { readOnlyHint: true } });
    expect(participates(readOnly, 'all', id)).toBe(true);
    expect(participates(readOnly, ['read'], id)).toBe(true);
    expect(participates(tool('create'), ['read'], id)).toBe(false);
    expect(participates(tool('create'), (t) => t.name.startsWith('cr'), id)).toBe(true);
  });

  it('refuses a malformed author entry with a ConfigurationError naming the tool', () => {
    expect(() => readAuthorToolMeta(tool('x', { _meta: { [id]: true } }), id)).toThrow(ConfigurationError);
    expect(() => readAuthorToolMeta(tool('x', { _meta: { [id]: { idempotent_capable: 'yes' } } }), id)).toThrow(
      /tool "x"/,
    );
  });
});

describe('stored and returned results (IDEM-12)', () => {
  it('stores a JSON copy without its own _meta entry and keeps the others', () => {
    const result: ToolResult = {
      content: [{ type: 'text', text: 'x' }],
      _meta: { [IDEMPOTENCY_ID]: { old: true }, other: 1 },
    };
    expect(storableResult(result, IDEMPOTENCY_ID)).toEqual({
      content: [{ type: 'text', text: 'x' }],
      _meta: { other: 1 },
    });
    expect(storableResult({ content: [], _meta: { [IDEMPOTENCY_ID]: 1 } }, IDEMPOTENCY_ID)).toEqual({ content: [] });
    expect(storableResult({ content: [], structuredContent: { n: 10n } }, IDEMPOTENCY_ID)).toBeUndefined();
  });

  it('reads back what it writes and ignores malformed entries', () => {
    const meta = { idempotency_key: 'k', was_replay: false, original_timestamp: '2026-01-01T00:00:00.000Z' };
    expect(readResultMeta(withResultMeta({ content: [] }, IDEMPOTENCY_ID, meta), IDEMPOTENCY_ID)).toEqual(meta);
    expect(
      readResultMeta({ content: [], _meta: { [IDEMPOTENCY_ID]: { idempotency_key: 'k' } } }, IDEMPOTENCY_ID),
    ).toBeUndefined();
    fc.assert(
      fc.property(fc.anything(), (raw) => readResultMeta(raw, IDEMPOTENCY_ID) === undefined || typeof raw === 'object'),
    );
  });
});
