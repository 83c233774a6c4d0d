import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { seedValidators } from '@ext/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { streamingClient } from './client.js';
import { SCHEMA_BASE, streamingJsonSchema } from './schema.js';
import { streamingServer } from './server.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(streamingJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  ajv.addSchema(streamingJsonSchema());
  const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
  const seed = seedValidators();

  it('STRM-1 STRM-2: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const server = streamingServer();
    expect(check('server-settings', server.settings)).toBe(true);
    expect(check('client-settings', streamingClient().settings)).toBe(true);
    expect(
      check(
        'tool-meta',
        server.toolMeta?.({ name: 't', _meta: { 'io.github.mcp-ext/streaming': { checkpoints: true } } }),
      ),
    ).toBe(true);
    expect(check('request-meta', { operation_id: 'op 1' })).toBe(false);
    expect(check('request-meta', { operation_id: 'op-1', checkpoint_token: '' })).toBe(false);
    expect(check('result-meta', { operation_id: 'op-1', resumed: 'no' })).toBe(false);
  });

  it('STRM-7 STRM-9: progress and chunk payloads agree with the seed schema on sample payloads', () => {
    const samples: [string, string, unknown][] = [
      [
        'progress-notification',
        'ProgressNotification',
        {
          type: 'progress',
          operation_id: 'op-42',
          progress: 0.6,
          message: 'Processing row 6,000 of 10,000',
          estimated_remaining_seconds: 12,
        },
      ],
      [
        'progress-notification',
        'ProgressNotification',
        { type: 'progress', operation_id: 'op-42', partial_result: { rows: 3 }, checkpoint_token: 't' },
      ],
      ['progress-notification', 'ProgressNotification', { type: 'progress', operation_id: 'op-42', progress: 1.5 }],
      [
        'progress-notification',
        'ProgressNotification',
        { type: 'progress', operation_id: 'op-42', partial_result: [1] },
      ],
      ['progress-notification', 'ProgressNotification', { type: 'chunk', operation_id: 'op-42' }],
      [
        'stream-chunk',
        'StreamChunk',
        {
          type: 'stream_chunk',
          operation_id: 'op-42',
          sequence: 0,
          data: { row: 1 },
          is_final: false,
          checkpoint_token: 't',
        },
      ],
      ['stream-chunk', 'StreamChunk', { type: 'stream_chunk', operation_id: 'op-42', sequence: -1 }],
      ['stream-chunk', 'StreamChunk', { type: 'stream_chunk', operation_id: 'op-42', sequence: 1.5 }],
      ['stream-chunk', 'StreamChunk', { type: 'stream_chunk', sequence: 1 }],
    ];
    for (const [ours, def, value] of samples) {
      expect(check(ours, value), `${ours} ${JSON.stringify(value)}`).toBe(seed.check('streaming', def)(value).valid);
    }
  });

  it('STRM-4: a resume entry is the seed ResumeRequest', () => {
    const resume = seed.check('streaming', 'ResumeRequest');
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9_\-:.]{1,128}$/),
        fc.string({ minLength: 1, maxLength: 512 }),
        (operation_id, checkpoint_token) => {
          const entry = { operation_id, checkpoint_token };
          expect(check('request-meta', entry)).toBe(true);
          expect(resume(entry).valid).toBe(true);
        },
      ),
    );
  });
});
