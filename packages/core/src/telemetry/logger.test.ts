import { describe, expect, it } from 'vitest';
import { logError, pinoLogger, type Logger, type ObjectFirstLogger } from './logger.js';

describe('logError', () => {
  it('uses error when the logger has it, as a method call', () => {
    const calls: unknown[][] = [];
    class ClassLogger implements Logger {
      readonly prefix = 'svc';
      warn(): void {
        calls.push(['warn']);
      }
      error(message: string, details?: Record<string, unknown>): void {
        calls.push([this.prefix, message, details]);
      }
    }
    logError(new ClassLogger(), 'broke', { a: 1 });
    expect(calls).toEqual([['svc', 'broke', { a: 1 }]]);
  });

  it('falls back to warn', () => {
    const calls: unknown[][] = [];
    logError({ warn: (message, details) => calls.push([message, details]) }, 'broke');
    expect(calls).toEqual([['broke', undefined]]);
  });
});

describe('pinoLogger', () => {
  /** pino's shape: the details first, the message second, and methods that need their `this`. */
  class FakePino implements ObjectFirstLogger {
    readonly records: { level: string; details: object; message: string }[] = [];
    warn(details: object, message: string): void {
      this.records.push({ level: 'warn', details, message });
    }
    error(details: object, message: string): void {
      this.records.push({ level: 'error', details, message });
    }
    debug(details: object, message: string): void {
      this.records.push({ level: 'debug', details, message });
    }
  }

  it('puts the details first and the message second, on each level', () => {
    const pino = new FakePino();
    const logger = pinoLogger(pino);
    logger.warn('careful', { tool: 't' });
    logger.error?.('broke', { correlation_id: 'abc' });
    logger.debug?.('detail');
    expect(pino.records).toEqual([
      { level: 'warn', details: { tool: 't' }, message: 'careful' },
      { level: 'error', details: { correlation_id: 'abc' }, message: 'broke' },
      { level: 'debug', details: {}, message: 'detail' },
    ]);
  });

  it('drops debug for a logger without it', () => {
    const records: string[] = [];
    const logger = pinoLogger({
      warn: (_details, message) => records.push(message),
      error: (_details, message) => records.push(message),
    });
    logger.debug?.('nothing');
    logger.warn('w');
    expect(records).toEqual(['w']);
  });
});
