import type { Logger } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../upstream/testing/servers.js';
import { redactionMarker } from './pattern-detector.js';
import { redactingLogger } from './redacting-logger.js';
import { createRedactor } from './redactor.js';

// Fake secrets, assembled at run time so that no secret scanner sees a whole key in this file.
const AWS_KEY_ID = 'AKIA' + 'EXAMPLE'.padEnd(16, 'X');
const GITHUB_TOKEN = 'ghp_' + 'FAKE'.padEnd(36, 'aB3');
const M = redactionMarker;

const redactor = createRedactor();

describe('redactingLogger (GW-24)', () => {
  it('redacts every message and details object, at every level', () => {
    const inner = recordingLogger();
    const logger = redactingLogger(inner, redactor);
    logger.warn(`upstream files: key ${AWS_KEY_ID}`, { line: `token ${GITHUB_TOKEN}`, password: 'Hunter2!' });
    logger.debug?.(`upstream files: ${GITHUB_TOKEN}`);
    logger.error?.('failed', { nested: { list: [AWS_KEY_ID] } });
    expect(inner.entries).toEqual([
      {
        level: 'warn',
        message: `upstream files: key ${M('aws-access-key-id')}`,
        details: { line: `token ${M('github-token')}`, password: M('password-field') },
      },
      { level: 'debug', message: `upstream files: ${M('github-token')}`, details: undefined },
      { level: 'error', message: 'failed', details: { nested: { list: [M('aws-access-key-id')] } } },
    ]);
  });

  it('logs an Error in the details as its redacted stack, not as an empty object', () => {
    const inner = recordingLogger();
    redactingLogger(inner, redactor).warn('could not take up the tools', {
      error: new Error(`upstream said ${GITHUB_TOKEN}`),
    });
    const logged = inner.entries[0]?.details?.error;
    expect(logged).toEqual(expect.stringContaining(`Error: upstream said ${M('github-token')}`));
    expect(JSON.stringify(inner.entries)).not.toContain(GITHUB_TOKEN);
  });

  it('has exactly the methods of the logger it wraps, and calls them as methods', () => {
    const warned: string[] = [];
    const warnOnly = redactingLogger({ warn: (message) => warned.push(message) }, redactor);
    expect(Object.keys(warnOnly)).toEqual(['warn']);
    warnOnly.warn(AWS_KEY_ID);
    expect(warned).toEqual([M('aws-access-key-id')]);

    class ClassLogger implements Logger {
      readonly lines: string[] = [];
      warn(message: string): void {
        this.lines.push(message);
      }
    }
    const target = new ClassLogger();
    redactingLogger(target, redactor).warn('plain');
    expect(target.lines).toEqual(['plain']);
  });
});
