import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '@ext/core';
import { metaPointer, withResultMeta, type JsonValue } from '@ext/core/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  argumentsDigest,
  checkpointKey,
  checkpointToJson,
  CHECKPOINT_RECORD_VERSION,
  decideResume,
  mintCheckpointToken,
  operationKey,
  parseCheckpointRecord,
  parseCheckpointToken,
  tokenDigest,
  type CheckpointRecord,
  type ResumeQuery,
} from './checkpoints.js';
import {
  acceptChunk,
  isValidOperationId,
  mayReportProgress,
  parseProgressNotification,
  parseStreamChunk,
  parseStreamingMeta,
  progressFraction,
  readAuthorToolMeta,
  readResultMeta,
} from './logic.js';
import { STREAMING_ID } from './schema.js';

const operationIds = fc.stringMatching(/^[a-zA-Z0-9_\-:.]{1,128}$/);
const json: fc.Arbitrary<JsonValue> = fc.jsonValue() as fc.Arbitrary<JsonValue>;

describe('parseStreamingMeta', () => {
  it('STRM-4: never throws, and accepts exactly the well-formed entries', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const parsed = parseStreamingMeta(raw, STREAMING_ID);
        if (parsed.ok) {
          expect(isValidOperationId(parsed.value.operationId)).toBe(true);
        } else {
          expect(parsed.pointer.startsWith(metaPointer(STREAMING_ID))).toBe(true);
          expect(parsed.message).toContain(STREAMING_ID);
        }
      }),
    );
  });

  it('STRM-4: accepts an operation id with an optional checkpoint token', () => {
    fc.assert(
      fc.property(
        operationIds,
        fc.option(fc.string({ minLength: 1, maxLength: 512 }), { nil: undefined }),
        (operation_id, checkpoint_token) => {
          const raw = checkpoint_token === undefined ? { operation_id } : { operation_id, checkpoint_token };
          expect(parseStreamingMeta(raw, STREAMING_ID)).toEqual({
            ok: true,
            value: { operationId: operation_id, checkpointToken: checkpoint_token },
          });
        },
      ),
    );
  });

  it('STRM-4: names the offending field with its JSON Pointer', () => {
    expect(parseStreamingMeta([], STREAMING_ID)).toMatchObject({
      ok: false,
      field: STREAMING_ID,
      pointer: '/_meta/io.github.mcp-ext~1streaming',
    });
    expect(parseStreamingMeta({}, STREAMING_ID)).toMatchObject({
      ok: false,
      field: 'operation_id',
      pointer: '/_meta/io.github.mcp-ext~1streaming/operation_id',
    });
    expect(parseStreamingMeta({ operation_id: 'x'.repeat(129) }, STREAMING_ID)).toMatchObject({
      ok: false,
      field: 'operation_id',
    });
    expect(parseStreamingMeta({ operation_id: 'op', checkpoint_token: 7 }, STREAMING_ID)).toMatchObject({
      ok: false,
      field: 'checkpoint_token',
      pointer: '/_meta/io.github.mcp-ext~1streaming/checkpoint_token',
    });
    expect(parseStreamingMeta({ operation_id: 'op', checkpoint_token: 'x'.repeat(513) }, STREAMING_ID)).toMatchObject({
      ok: false,
      field: 'checkpoint_token',
    });
  });
});

describe('checkpoint tokens', () => {
  it('STRM-12: a minted token parses back to its expiry (rounded up to the second)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (random, expiresAtMs) => {
          const token = mintCheckpointToken(random, expiresAtMs);
          expect(token.length).toBeLessThanOrEqual(512);
          const parsed = parseCheckpointToken(token);
          expect(parsed?.expiresAtMs).toBe(Math.ceil(expiresAtMs / 1000) * 1000);
        },
      ),
    );
  });

  it('STRM-14: anything else is not a token, and never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const parsed = parseCheckpointToken(raw);
        if (parsed !== undefined) expect(typeof raw).toBe('string');
      }),
    );
    expect(parseCheckpointToken('v2.1.AAAAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(parseCheckpointToken('v1.1.short')).toBeUndefined();
  });

  it('refuses too little randomness', () => {
    expect(() => mintCheckpointToken(new Uint8Array(8), 0)).toThrow(RangeError);
  });

  it('STRM-13: store keys never contain the token, and separate principals and operations', () => {
    const token = mintCheckpointToken(randomBytes(18), Date.now());
    const key = checkpointKey('streaming', 'alice', tokenDigest(token));
    expect(key).not.toContain(token);
    expect(checkpointKey('streaming', 'a:b', 'd')).not.toBe(checkpointKey('streaming', 'a', 'b:d'));
    expect(operationKey('streaming', 'a:b', 'c')).not.toBe(operationKey('streaming', 'a', 'b:c'));
    expect(tokenDigest(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});

const records: fc.Arbitrary<CheckpointRecord> = fc.record({
  v: fc.constant(CHECKPOINT_RECORD_VERSION),
  operation_id: operationIds,
  tool: fc.string({ minLength: 1, maxLength: 20 }),
  arguments: fc.string({ minLength: 64, maxLength: 64 }),
  state: json,
  next_sequence: fc.nat(),
  created_at: fc.nat({ max: 2_000_000_000_000 }),
  expires_at: fc.integer({ min: 2_000_000_000_001, max: 3_000_000_000_000 }),
});

describe('checkpoint records and the resume decision', () => {
  it('STRM-12: a stored record reads back unchanged', () => {
    fc.assert(
      fc.property(records, (record) => {
        expect(parseCheckpointRecord(JSON.parse(JSON.stringify(checkpointToJson(record))))).toEqual(
          JSON.parse(JSON.stringify(record)),
        );
      }),
    );
  });

  it('never throws on what a store might hold', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const parsed = parseCheckpointRecord(raw);
        if (parsed !== undefined) expect(parsed.v).toBe(CHECKPOINT_RECORD_VERSION);
      }),
    );
  });

  function queryFor(record: CheckpointRecord, token: string, now: number): ResumeQuery {
    return { token, operationId: record.operation_id, tool: record.tool, argumentsDigest: record.arguments, now };
  }

  it('STRM-12 STRM-14: resumes exactly when token, record, tool, operation and arguments agree and nothing expired', () => {
    fc.assert(
      fc.property(records, fc.integer({ min: 0, max: 2_000_000_000_000 }), (record, now) => {
        const token = mintCheckpointToken(randomBytes(18), record.expires_at);
        const query = queryFor(record, token, now);
        expect(decideResume(query, checkpointToJson(record))).toEqual({ kind: 'resume', record });
        expect(decideResume(query, undefined)).toEqual({ kind: 'not_found' });
        expect(decideResume({ ...query, now: record.expires_at + 1000 }, checkpointToJson(record))).toEqual({
          kind: 'expired',
        });
        expect(decideResume({ ...query, tool: `${record.tool}x` }, checkpointToJson(record))).toEqual({
          kind: 'mismatch',
          field: 'tool',
        });
        expect(decideResume({ ...query, operationId: `${record.operation_id}x` }, checkpointToJson(record))).toEqual({
          kind: 'mismatch',
          field: 'operation_id',
        });
        expect(decideResume({ ...query, argumentsDigest: 'other' }, checkpointToJson(record))).toEqual({
          kind: 'mismatch',
          field: 'arguments',
        });
        expect(decideResume({ ...query, token: 'forged' }, checkpointToJson(record))).toEqual({ kind: 'not_found' });
        expect(decideResume(query, { v: 99 })).toEqual({ kind: 'unreadable' });
      }),
    );
  });

  it('STRM-12: binds arguments canonically (key order does not matter)', () => {
    expect(argumentsDigest('t', { a: 1, b: 2 })).toBe(argumentsDigest('t', { b: 2, a: 1 }));
    expect(argumentsDigest('t', { a: 1 })).not.toBe(argumentsDigest('u', { a: 1 }));
  });
});

describe('progress', () => {
  it('STRM-7: the fraction stays within 0..1 and is absent when indeterminate', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true }),
        fc.option(fc.double({ noNaN: true }), { nil: undefined }),
        (done, total) => {
          const fraction = progressFraction(done, total);
          if (fraction !== undefined) {
            expect(fraction).toBeGreaterThanOrEqual(0);
            expect(fraction).toBeLessThanOrEqual(1);
          }
          if (total === undefined || !(total > 0)) expect(fraction).toBeUndefined();
        },
      ),
    );
  });

  it('STRM-8: MCP progress only ever increases', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 50 })), (values) => {
        let last: number | undefined;
        const sent: number[] = [];
        for (const value of values) {
          if (mayReportProgress(last, value)) {
            sent.push(value);
            last = value;
          }
        }
        for (let i = 1; i < sent.length; i += 1) expect(sent[i]).toBeGreaterThan(sent[i - 1]!);
      }),
    );
  });
});

describe('chunk order on the client', () => {
  it('STRM-10 STRM-19: across any number of resumes, each chunk is delivered once, in order', () => {
    // A run sends chunks 0..n-1; interruptions replay from an earlier checkpoint at or before what was received.
    const scenario = fc.integer({ min: 1, max: 40 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        resumes: fc.array(fc.record({ at: fc.nat({ max: n - 1 }), back: fc.nat({ max: n }) }), { maxLength: 5 }),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ n, resumes }) => {
        const wire: number[] = [];
        let position = 0;
        for (const { at, back } of [...resumes].sort((a, b) => a.at - b.at)) {
          if (at < position) continue;
          for (; position <= at; position += 1) wire.push(position);
          position = Math.max(0, position - back);
        }
        for (; position < n; position += 1) wire.push(position);
        let next = 0;
        const delivered: number[] = [];
        for (const sequence of wire) {
          const decision = acceptChunk(next, sequence);
          next = decision.next;
          if (decision.accept) delivered.push(sequence);
        }
        expect(delivered).toEqual(Array.from({ length: n }, (_, i) => i));
      }),
    );
  });
});

describe('notification payloads from the peer', () => {
  it('never throws and only accepts the seed shapes', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const progress = parseProgressNotification(raw);
        if (progress !== undefined) expect(progress.type).toBe('progress');
        const chunk = parseStreamChunk(raw);
        if (chunk !== undefined) expect(Number.isInteger(chunk.sequence)).toBe(true);
      }),
    );
    expect(parseStreamChunk({ type: 'stream_chunk', operation_id: 'o', sequence: 0, data: null })).toBeDefined();
    expect(parseProgressNotification({ type: 'progress', operation_id: 'o', progress: 2 })).toBeUndefined();
  });
});

describe('tool metadata and results', () => {
  it('STRM-3: validates what the author declared', () => {
    expect(readAuthorToolMeta({ name: 't' }, STREAMING_ID)).toBeUndefined();
    expect(readAuthorToolMeta({ name: 't', _meta: { [STREAMING_ID]: { checkpoints: true } } }, STREAMING_ID)).toEqual({
      checkpoints: true,
    });
    expect(() =>
      readAuthorToolMeta({ name: 't', _meta: { [STREAMING_ID]: { checkpoints: 'yes' } } }, STREAMING_ID),
    ).toThrow(ConfigurationError);
    expect(() => readAuthorToolMeta({ name: 't', _meta: { [STREAMING_ID]: true } }, STREAMING_ID)).toThrow(/tool "t"/);
  });

  it('STRM-5: writes and reads the result entry, keeping other _meta', () => {
    const result = withResultMeta({ content: [], _meta: { other: 1 } }, STREAMING_ID, {
      operation_id: 'op',
      resumed: false,
    });
    expect(result._meta).toEqual({ other: 1, [STREAMING_ID]: { operation_id: 'op', resumed: false } });
    expect(readResultMeta(result, STREAMING_ID)).toEqual({ operation_id: 'op', resumed: false });
    expect(
      readResultMeta({ content: [], _meta: { [STREAMING_ID]: { operation_id: 1 } } }, STREAMING_ID),
    ).toBeUndefined();
    expect(readResultMeta(null, STREAMING_ID)).toBeUndefined();
  });
});
