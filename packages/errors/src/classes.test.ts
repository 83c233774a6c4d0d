import { ERROR_CATEGORIES, ErrorCodes, ExtensionError } from '@ext/core';
import { toWireError } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import {
  AuthRequiredError,
  DEFAULT_CODES,
  ERROR_CLASSES,
  fromStructured,
  InvalidInputError,
  PermanentError,
  RateLimitedError,
  toolError,
  TransientError,
} from './classes.js';
import { seedValidators } from '@ext/core/testing';

// The key core stores brands under (packages/core/src/errors.ts); a duplicate copy of core uses the same one.
const BRANDS = Symbol.for('io.github.mcp-ext/error-brands');

const seed = seedValidators().check('error');

describe('category classes', () => {
  it.each(ERROR_CATEGORIES)(
    '%s: class carries its category and builds a schema-valid object, retry_after rounded up (ERR-5, ERR-8)',
    (category) => {
      const Class = ERROR_CLASSES[category];
      const error = new Class('SOMETHING_FAILED', 'Something failed.', {
        suggestion: 'Do this.',
        retryAfterSeconds: 2.2,
      });
      expect(error).toBeInstanceOf(ExtensionError);
      expect(error).toBeInstanceOf(Error);
      expect(error.category).toBe(category);
      expect(error.code).toBe('SOMETHING_FAILED');
      const structured = error.toStructured();
      expect(structured).toEqual({
        code: 'SOMETHING_FAILED',
        message: 'Something failed.',
        category,
        suggestion: 'Do this.',
        retry_after_seconds: 3,
      });
      expect(seed(structured).valid).toBe(true);
    },
  );

  it('every exported class is branded and recognised only by its own isInstance', () => {
    const classes = Object.values(ERROR_CLASSES);
    const brands = new Set(classes.map((Class) => Class.brand));
    expect(brands.size).toBe(classes.length);
    for (const Class of classes) {
      const error = new Class('X', 'x');
      expect(ExtensionError.isInstance(error)).toBe(true);
      for (const Other of classes) expect(Other.isInstance(error)).toBe(Other === Class);
      expect(Class.brand).toMatch(/^@ext\/errors\//);
    }
  });

  it('isInstance works across duplicate package copies (a plain object carrying the brand symbol)', () => {
    const fromOtherCopy: Record<PropertyKey, unknown> = { code: 'X', message: 'x', category: 'rate_limited' };
    Object.defineProperty(fromOtherCopy, BRANDS, {
      value: [ExtensionError.brand, RateLimitedError.brand],
      enumerable: false,
    });
    expect(RateLimitedError.isInstance(fromOtherCopy)).toBe(true);
    expect(ExtensionError.isInstance(fromOtherCopy)).toBe(true);
    expect(TransientError.isInstance(fromOtherCopy)).toBe(false);
    expect(fromOtherCopy instanceof RateLimitedError).toBe(false);
  });

  it('isInstance is false for look-alikes without the brand and for non-objects', () => {
    for (const value of [
      null,
      undefined,
      1,
      'RateLimitedError',
      { name: 'RateLimitedError', category: 'rate_limited' },
      new Error('x'),
    ]) {
      for (const Class of Object.values(ERROR_CLASSES)) expect(Class.isInstance(value)).toBe(false);
    }
  });

  it('keeps the cause for server-side logging, never in the structured object (ERR-6)', () => {
    const cause = new Error('connect ECONNREFUSED 10.0.0.5:5432');
    const error = new TransientError('DB_DOWN', 'The database is unavailable.', { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error.toStructured())).not.toContain('10.0.0.5');
  });

  it('core renders them as JSON-RPC errors for extension methods: -32602 for invalid_input, -31000 otherwise (ERR-14)', () => {
    const invalid = toWireError(new InvalidInputError('BAD', 'bad'));
    expect(invalid.code).toBe(ErrorCodes.InvalidParams);
    expect(invalid.data).toEqual({ code: 'BAD', message: 'bad', category: 'invalid_input' });
    const other = toWireError(new PermanentError('GONE', 'gone'));
    expect(other.code).toBe(ErrorCodes.ExtensionFailure);
    expect(other.code < -32768 || other.code > -32000).toBe(true);
  });
});

describe('toolError builder', () => {
  it('builds each class with the documented default code', () => {
    expect(toolError.transient({ message: 'm' })).toBeInstanceOf(TransientError);
    expect(toolError.permanent({ message: 'm' })).toBeInstanceOf(PermanentError);
    expect(toolError.authRequired({ message: 'm' })).toBeInstanceOf(AuthRequiredError);
    expect(toolError.invalidInput({ message: 'm' })).toBeInstanceOf(InvalidInputError);
    expect(toolError.rateLimited({ message: 'm' })).toBeInstanceOf(RateLimitedError);
    expect(toolError.transient({ message: 'm' }).code).toBe(DEFAULT_CODES.transient);
    expect(toolError.rateLimited({ message: 'm' }).code).toBe('RATE_LIMIT_EXCEEDED');
    expect(toolError.authRequired({ message: 'm' }).code).toBe('AUTHENTICATION_REQUIRED');
  });

  it('passes every field through to the wire object', () => {
    const error = toolError.rateLimited({
      code: 'SEARCH_QUOTA',
      message: 'Search quota used up.',
      retryAfterSeconds: 42,
      userActionable: true,
      suggestion: 'Narrow the date range.',
      details: { limit: 100 },
      documentationUrl: 'https://docs.example.com/errors#SEARCH_QUOTA',
    });
    expect(error.toStructured()).toEqual({
      code: 'SEARCH_QUOTA',
      message: 'Search quota used up.',
      category: 'rate_limited',
      retry_after_seconds: 42,
      user_actionable: true,
      suggestion: 'Narrow the date range.',
      details: { limit: 100 },
      documentation_url: 'https://docs.example.com/errors#SEARCH_QUOTA',
    });
  });

  it('fromStructured rebuilds the class of the category, round-tripping the object', () => {
    for (const category of ERROR_CATEGORIES) {
      const structured = { code: 'C', message: 'm', category, retry_after_seconds: 1, details: { a: 1 } };
      const error = fromStructured(structured);
      expect(ERROR_CLASSES[category].isInstance(error)).toBe(true);
      expect(error.toStructured()).toEqual(structured);
    }
  });
});
