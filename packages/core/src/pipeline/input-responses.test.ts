import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inputResponsesFault, refuseInputResponses } from './input-responses.js';

const request = (params: unknown) => ({ jsonrpc: '2.0', id: 7, method: 'tasks/update', params });

describe('CORE-46: params.inputResponses must be an object', () => {
  it('refuses every value that is not an object, naming the field and echoing the id', async () => {
    for (const value of ['x', null, [1], true, 3, 0, '']) {
      const answer = refuseInputResponses(request({ taskId: 't', inputResponses: value }));
      expect(answer?.status).toBe(200);
      expect(await answer?.json()).toMatchObject({
        id: 7,
        error: {
          code: -32602,
          data: { category: 'invalid_input', details: { field: 'inputResponses', pointer: '/inputResponses' } },
        },
      });
    }
  });

  it('leaves alone objects, requests without the field, notifications and bodies that are not requests', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (answers) => {
        expect(inputResponsesFault(request({ taskId: 't', inputResponses: answers }))).toBeUndefined();
      }),
    );
    expect(inputResponsesFault(request({ taskId: 't' }))).toBeUndefined();
    expect(
      inputResponsesFault({ jsonrpc: '2.0', method: 'notifications/x', params: { inputResponses: 1 } }),
    ).toBeUndefined();
    expect(inputResponsesFault([request({ inputResponses: 1 })])).toBeUndefined();
    expect(inputResponsesFault(undefined)).toBeUndefined();
  });

  it('says what it got', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue())),
        (value) => {
          expect(inputResponsesFault(request({ inputResponses: value }))?.message).toMatch(
            /^tasks\/update: params\.inputResponses must be an object, got (string|number|boolean|null|an array)$/,
          );
        },
      ),
    );
  });
});
