import { ConfigurationError, WireError, type ExtendedClient } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { isInterruption, streamCall, streamingClient } from './client.js';

// Option checks run before the client is touched.
const unused = {} as ExtendedClient;

describe('streamingClient', () => {
  it('STRM-1: advertises the wire version', () => {
    expect(streamingClient()).toMatchObject({
      side: 'client',
      name: '@ext/streaming',
      ids: ['io.github.mcp-ext/streaming'],
      settings: { version: '1.0' },
    });
  });
});

describe('streamCall options', () => {
  it('names what it refuses', () => {
    expect(() => streamCall(unused, 't', {}, { operationId: 'has space' })).toThrow(/operationId/);
    expect(() => streamCall(unused, 't', {}, { resumeFrom: { operationId: 'op', checkpointToken: '' } })).toThrow(
      /resumeFrom/,
    );
    expect(() => streamCall(unused, 't', {}, { autoResume: { maxAttempts: -1 } })).toThrow(/maxAttempts/);
    expect(() => streamCall(unused, 't', {}, { autoResume: { delayMs: 0.5 } })).toThrow(/delayMs/);
    expect(() =>
      streamCall(unused, 't', {}, { autoResume: { reconnect: 1 as unknown as () => ExtendedClient } }),
    ).toThrow(/reconnect/);
    expect(() => streamCall(unused, 't', {}, { autoResume: 'yes' as unknown as boolean })).toThrow(ConfigurationError);
  });

  it('STRM-11: a resume keeps the operation id of its checkpoint; a fresh call gets a new one', () => {
    expect(
      streamCall(unused, 't', {}, { resumeFrom: { operationId: 'op-7', checkpointToken: 'v1.1.x' } }).operationId,
    ).toBe('op-7');
    expect(streamCall(unused, 't').operationId).not.toBe(streamCall(unused, 't').operationId);
    expect(streamCall(unused, 't', {}, { operationId: 'mine' }).checkpoint).toBeUndefined();
  });

  it('is iterated once', () => {
    const call = streamCall(unused, 't');
    void call[Symbol.asyncIterator]();
    expect(() => call[Symbol.asyncIterator]()).toThrow(/once/);
  });
});

describe('isInterruption', () => {
  it('STRM-19: resumes after transport failures, not after answers of the server', () => {
    expect(isInterruption(new Error('fetch failed'))).toBe(true);
    expect(isInterruption(new WireError(-32000, 'Connection closed'))).toBe(true);
    expect(isInterruption(new WireError(-32001, 'Request timed out'))).toBe(true);
    expect(isInterruption(new WireError(-32602, 'Invalid params'))).toBe(false);
    expect(isInterruption(new WireError(-32021, 'Missing capability'))).toBe(false);
  });
});
