import { describe, expect, it } from 'vitest';
import { ConfigurationError, ExtensionError, StoreUnavailableError, WireError, toWireError } from './errors.js';

const BRANDS = Symbol.for('io.github.mcp-ext/error-brands');

describe('branded errors', () => {
  it.each([
    ['ExtensionError', ExtensionError, new ExtensionError('transient', 'X', 'x')],
    ['WireError', WireError, new WireError(-32021, 'x')],
    ['ConfigurationError', ConfigurationError, new ConfigurationError('X', 'x')],
    ['StoreUnavailableError', StoreUnavailableError, new StoreUnavailableError()],
  ] as const)('%s.isInstance works across duplicate copies of the package', (_name, cls, instance) => {
    expect(cls.isInstance(instance)).toBe(true);
    // A copy from another instance of the package carries the same global brand, not the same class.
    const foreign = Object.assign(new Error('x'), { [BRANDS]: [cls.brand] });
    expect(cls.isInstance(foreign)).toBe(true);
    expect(cls.isInstance(new Error('x'))).toBe(false);
    expect(cls.isInstance(null)).toBe(false);
  });

  it('maps extension failures to JSON-RPC errors without leaking internals', () => {
    const invalid = toWireError(
      new ExtensionError('invalid_input', 'INVALID_INPUT', 'bad', { details: { field: '/a' } }),
    );
    expect(invalid).toMatchObject({
      code: -32602,
      data: { code: 'INVALID_INPUT', category: 'invalid_input', details: { field: '/a' } },
    });
    expect(toWireError(new ExtensionError('transient', 'BUSY', 'busy', { retryAfterSeconds: 1.2 })).data).toMatchObject(
      {
        retry_after_seconds: 2,
      },
    );
    const internal = toWireError(new Error('SELECT * FROM secrets at /srv/app.js:12'));
    expect(JSON.stringify(internal)).not.toMatch(/secrets|srv/);
    expect(internal.code).toBe(-32603);
  });

  it('a store outage travels as transient SERVICE_UNAVAILABLE with a wait, never permanent, and leaks nothing', () => {
    const error = new StoreUnavailableError({
      reason: 'timeout',
      retryAfterSeconds: 2,
      cause: new Error('redis://10.0.0.5:6379 timed out'),
    });
    expect(ExtensionError.isInstance(error)).toBe(true);
    expect(error.reason).toBe('timeout');
    expect(error.toStructured()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      category: 'transient',
      message: 'The server cannot use its data store right now.',
      retry_after_seconds: 2,
      user_actionable: false,
      suggestion: 'Try again shortly.',
      details: { reason: 'timeout' },
    });
    const wire = toWireError(error);
    expect(wire.code).toBe(-31000);
    expect(JSON.stringify(wire.data)).not.toMatch(/10\.0\.0\.5|6379/);
    expect(new StoreUnavailableError().toStructured()).toMatchObject({
      retry_after_seconds: 1,
      details: { reason: 'unreachable' },
    });
  });
});
