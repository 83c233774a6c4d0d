// How a call's end is read for the metrics (GW-37), from results and errors as the extensions make them.
import { ErrorCodes, ExtensionError, WireError, type StructuredError } from '@ext/core';
import { inputRequiredResult } from '@ext/core/kit';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { ERRORS_ID } from '@ext/errors';
import { errorResult } from '@ext/errors/server';
import { describe, expect, it } from 'vitest';
import { OTHER, resultEnd, thrownEnd, TOOL_ERROR, upstreamErrorType } from './outcome.js';

function structured(code: string, category: StructuredError['category']): StructuredError {
  return { code, category, message: `${code} happened` };
}

const QUOTA = structured('QUOTA_EXHAUSTED', 'rate_limited');
const RATE = structured('RATE_LIMIT_EXCEEDED', 'rate_limited');
const text = (value: string) => [{ type: 'text', text: value }];

describe('how a call ended', () => {
  it('an answer is ok; one that ran after a confirmation is a confirmed one', () => {
    expect(resultEnd({ content: text('done') }, undefined)).toEqual({
      outcome: 'ok',
      category: '',
      errorType: '',
      confirmation: undefined,
    });
    const confirmed = { content: text('done'), _meta: { [CONFIRMATION_ID]: { status: 'confirmed', via: 'token' } } };
    expect(resultEnd(confirmed, undefined)).toMatchObject({ outcome: 'ok', confirmation: 'confirmed' });
  });

  it('an upstream’s isError result is an error (tool_error), not a success', () => {
    expect(resultEnd({ content: text('no such entity'), isError: true }, undefined)).toEqual({
      outcome: 'error',
      category: TOOL_ERROR,
      errorType: TOOL_ERROR,
      limit: undefined,
      confirmation: undefined,
    });
  });

  it('a refusal is its structured error’s category, whether the client was sent it or not', () => {
    // A client that negotiated the errors extension finds it in `_meta`; for any other, the errors stage reported it.
    expect(resultEnd(errorResult(QUOTA, true, ERRORS_ID), undefined)).toMatchObject({
      outcome: 'error',
      category: 'rate_limited',
      errorType: TOOL_ERROR,
      limit: 'quota',
    });
    expect(resultEnd(errorResult(RATE, false), RATE)).toMatchObject({ category: 'rate_limited', limit: 'rate_limit' });
    expect(resultEnd(errorResult(structured('SCOPE_INSUFFICIENT', 'auth_required'), false), undefined)).toMatchObject({
      category: TOOL_ERROR,
      limit: undefined,
    });
  });

  it('a category outside the model’s is _OTHER, so labels stay a closed set', () => {
    const odd = { ...QUOTA, category: 'made_up' } as unknown as StructuredError;
    expect(resultEnd(errorResult(odd, false), odd).category).toBe(OTHER);
  });

  it('confirmations: asked (held for a token), declined, refused; an operator’s are left to the approvals', () => {
    const held = {
      content: text('Confirmation required'),
      _meta: { [CONFIRMATION_ID]: { status: 'confirmation_required', confirmation_token: 't' } },
    };
    expect(resultEnd(held, undefined)).toMatchObject({ outcome: 'held', category: '', confirmation: 'requested' });
    const end = (code: string) => resultEnd(errorResult(structured(code, 'permanent'), false), undefined);
    const reported = (code: string) =>
      resultEnd(errorResult(structured(code, 'permanent'), false), structured(code, 'permanent'));
    expect(reported('CONFIRMATION_DECLINED').confirmation).toBe('declined');
    expect(reported('CONFIRMATION_REQUIRED').confirmation).toBe('refused');
    expect(reported('CONFIRMATION_TOKEN_REPLAYED').confirmation).toBe('refused');
    expect(reported('CONFIRMATION_PENDING').confirmation).toBeUndefined();
    expect(reported('CONFIRMATION_DENIED').confirmation).toBeUndefined();
    expect(end('CONFIRMATION_DECLINED').confirmation).toBeUndefined();
  });

  it('a task, or a question back to the client, holds the call: nothing ran yet', () => {
    expect(resultEnd({ resultType: 'task', taskId: 't-1', status: 'working' }, undefined)).toEqual({
      outcome: 'held',
      category: '',
      errorType: '',
    });
    const asking = inputRequiredResult({
      confirm: { message: 'Write it?', requestedSchema: { type: 'object', properties: {} } },
    });
    expect(resultEnd(asking, undefined).outcome).toBe('held');
  });

  it('thrown: a JSON-RPC error by its code; anything else as the client sees it, an isError result', () => {
    const wire = new WireError(ErrorCodes.MissingRequiredClientCapability, 'needs an extension');
    expect(thrownEnd(wire, undefined)).toEqual({
      outcome: 'error',
      category: 'protocol_error',
      errorType: String(ErrorCodes.MissingRequiredClientCapability),
    });
    const refused = new ExtensionError('auth_required', 'CALLER_UNIDENTIFIED', 'who?');
    expect(thrownEnd(refused, undefined)).toMatchObject({ category: 'auth_required', errorType: TOOL_ERROR });
    expect(thrownEnd(new TypeError('bug'), undefined)).toMatchObject({ category: 'internal', errorType: TOOL_ERROR });
  });
});

describe('how a call upstream ended', () => {
  it('answered, isError, or a fault by its code or class', () => {
    expect(upstreamErrorType({ content: [] }, undefined)).toBe('');
    expect(upstreamErrorType({ content: [], isError: true }, undefined)).toBe(TOOL_ERROR);
    const fault = new ExtensionError('transient', 'UPSTREAM_TIMEOUT', 'slow', { retryAfterSeconds: 5 });
    expect(upstreamErrorType(undefined, fault)).toBe('UPSTREAM_TIMEOUT');
    expect(upstreamErrorType(undefined, new WireError(-32602, 'bad params'))).toBe('-32602');
    expect(upstreamErrorType(undefined, new DOMException('gone', 'AbortError'))).toBe('AbortError');
    expect(upstreamErrorType(undefined, 'a string')).toBe(OTHER);
  });
});
