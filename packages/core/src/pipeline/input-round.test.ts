import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { elicitationAnswer, inputRequiredResult, isInputRequiredResult } from './input-round.js';
import { silentLogger } from '../telemetry/logger.js';
import { TEST_LINES, createTestPair, type TestPair } from '../testing/index.js';
import type { ToolResult } from '../contract/types.js';

describe('elicitationAnswer', () => {
  it('reads an elicitation answer by key and nothing else', () => {
    const round = {
      responses: { confirm: { action: 'accept', content: { confirm: true } }, odd: { action: 'maybe' }, text: 'x' },
    };
    expect(elicitationAnswer(round, 'confirm')).toEqual({ action: 'accept', content: { confirm: true } });
    expect(elicitationAnswer(round, 'odd')).toBeUndefined();
    expect(elicitationAnswer(round, 'text')).toBeUndefined();
    expect(elicitationAnswer(round, 'missing')).toBeUndefined();
    expect(elicitationAnswer(undefined, 'confirm')).toBeUndefined();
    expect(
      isInputRequiredResult(
        inputRequiredResult({ confirm: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } } }),
      ),
    ).toBe(true);
  });

  it('puts a requestState on the input_required result only when one is given', () => {
    const question = { message: 'ok?', requestedSchema: { type: 'object', properties: {} } };
    expect(inputRequiredResult({ q: question })).not.toHaveProperty('requestState');
    expect(inputRequiredResult({ q: question }, { requestState: 'abc' })).toMatchObject({
      resultType: 'input_required',
      requestState: 'abc',
    });
  });
});

describe.each(TEST_LINES)('asking the user in-band (%s)', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('asks through elicitation on the legacy era and through input_required on 2026-07-28', async () => {
    const asked: string[] = [];
    pair = await createTestPair({
      line,
      serverOptions: { logger: silentLogger },
      onElicit: (request) => {
        asked.push(request.message);
        return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
      },
      setup: (server) => {
        server.registerTool(
          'greet',
          { inputSchema: z.object({ greeting: z.string() }) },
          async ({ greeting }, ctx): Promise<ToolResult> => {
            const question = {
              message: 'Your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            };
            let name: unknown;
            if (ctx.elicit) {
              name = (await ctx.elicit(question)).content?.name;
            } else if (ctx.inputRound) {
              const answer = elicitationAnswer(ctx.inputRound, 'name');
              if (answer === undefined) return inputRequiredResult({ name: question });
              name = answer.content?.name;
            }
            return { content: [{ type: 'text', text: `${greeting}, ${String(name)}` }] };
          },
        );
      },
    });
    const result = await pair.client.callTool('greet', { greeting: 'Hello' });
    expect(result.content[0]).toMatchObject({ text: 'Hello, Ada' });
    expect(asked).toEqual(['Your name?']);
  });

  it('hands the retry the requestState the server put on its question, byte for byte', async () => {
    const seen: (string | undefined)[] = [];
    pair = await createTestPair({
      line,
      serverOptions: { logger: silentLogger },
      onElicit: () => Promise.resolve({ action: 'accept', content: { ok: true } }),
      setup: (server) => {
        server.registerTool('ask', {}, (_args, ctx): ToolResult => {
          if (!ctx.inputRound) return { content: [{ type: 'text', text: 'no input round' }] };
          seen.push(ctx.inputRound.requestState);
          if (elicitationAnswer(ctx.inputRound, 'q') === undefined) {
            return inputRequiredResult(
              { q: { message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
              { requestState: 'state-1 ✓' },
            );
          }
          return { content: [{ type: 'text', text: 'answered' }] };
        });
      },
    });
    const result = await pair.client.callTool('ask', {});
    if (line === 'v2-modern') {
      expect(result.content[0]).toMatchObject({ text: 'answered' });
      expect(seen).toEqual([undefined, 'state-1 ✓']);
    } else {
      // The legacy era has no input rounds: ctx.elicit asks instead.
      expect(result.content[0]).toMatchObject({ text: 'no input round' });
      expect(seen).toEqual([]);
    }
  });
});
