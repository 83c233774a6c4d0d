import { ConfigurationError, type CallContext, type ToolCall, type ToolInfo } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from './options.js';

const tool = (name: string): ToolInfo => ({ name });
const call = {} as ToolCall;
const ctx = {} as CallContext;

describe('tasksServer options', () => {
  it('fills in every default, the rules as functions of the tool', () => {
    const config = resolveOptions({});
    expect(config).toMatchObject({ ttlMs: 3_600_000, pollIntervalMs: 1000, leaseMs: 30_000, keyPrefix: 'tasks' });
    expect(config.now).toBe(Date.now);
    expect(config.support(tool('any'), call, ctx)).toBe('forbidden');
    expect(config.onInterrupt('any')).toBe('fail');
    expect(config.instance).not.toBe(resolveOptions({}).instance);
  });

  it('keeps what is given', () => {
    const now = (): number => 7;
    const config = resolveOptions({
      tools: { report: 'optional' },
      onInterrupt: { report: 'resume' },
      ttlMs: 60_000,
      pollIntervalMs: 50,
      leaseMs: 900,
      keyPrefix: 'jobs',
      now,
    });
    expect(config).toMatchObject({ ttlMs: 60_000, pollIntervalMs: 50, leaseMs: 900, keyPrefix: 'jobs', now });
    expect(config.support(tool('report'), call, ctx)).toBe('optional');
    expect(config.support(tool('other'), call, ctx)).toBe('forbidden');
    expect(config.onInterrupt('report')).toBe('resume');
  });

  it('refuses a bad option with INVALID_OPTION naming it, a null one included', () => {
    const refused = (options: object, message: RegExp | string): void => {
      expect(() => resolveOptions(options)).toThrow(ConfigurationError);
      expect(() => resolveOptions(options)).toThrow(message);
    };
    refused({ keyPrefix: '' }, 'tasksServer: keyPrefix must be a non-empty string');
    refused({ keyPrefix: null }, 'tasksServer: keyPrefix must be a non-empty string');
    refused({ now: null }, 'tasksServer: now must be a function returning milliseconds');
    refused({ leaseMs: 0 }, 'tasksServer: leaseMs must be a positive integer, got 0');
    refused({ ttlMs: 1.5 }, 'tasksServer: ttlMs must be a positive integer, got 1.5');
    refused({ tools: { report: 'sometimes' } }, /tools\.report must be "forbidden", "optional" or "required"/);
    refused({ onInterrupt: { report: 'retry' } }, /onInterrupt\.report must be "fail" or "resume"/);
  });
});
