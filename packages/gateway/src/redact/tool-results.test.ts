import { ExtensionError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { redactionMarker } from './pattern-detector.js';
import { createRedactor } from './redactor.js';
import { GATEWAY_META_KEY, redactedError, redactedResult } from './tool-results.js';

// Fake secrets, assembled at run time so that no secret scanner sees a whole key in this file.
const AWS_KEY_ID = 'AKIA' + 'EXAMPLE'.padEnd(16, 'X');
const GITHUB_TOKEN = 'ghp_' + 'FAKE'.padEnd(36, 'aB3');
const M = redactionMarker;

const redactor = createRedactor();

describe('redactedResult (GW-23)', () => {
  it('replaces secrets and puts their count under the gateway’s own _meta key', () => {
    const result = {
      content: [{ type: 'text', text: `id ${AWS_KEY_ID}, token ${GITHUB_TOKEN}` }],
      structuredContent: { token: GITHUB_TOKEN },
      _meta: { 'io.example/upstream': { kept: true } },
    };
    expect(redactedResult(redactor, result)).toEqual({
      content: [{ type: 'text', text: `id ${M('aws-access-key-id')}, token ${M('github-token')}` }],
      structuredContent: { token: M('password-field') },
      _meta: {
        'io.example/upstream': { kept: true },
        [GATEWAY_META_KEY]: {
          redaction: { count: 3, detectors: ['aws-access-key-id', 'github-token', 'password-field'] },
        },
      },
    });
    expect(GATEWAY_META_KEY).toBe('io.github.mcp-ext/gateway');
  });

  it('returns a result without secrets as it is, with no entry of ours', () => {
    const result = { content: [{ type: 'text', text: 'nothing to hide' }], isError: true };
    expect(redactedResult(redactor, result)).toBe(result);
  });

  it('replaces an entry an upstream put under our key', () => {
    const forged = { content: [{ type: 'text', text: AWS_KEY_ID }], _meta: { [GATEWAY_META_KEY]: { forged: 1 } } };
    expect(redactedResult(redactor, forged)._meta).toEqual({
      [GATEWAY_META_KEY]: { redaction: { count: 1, detectors: ['aws-access-key-id'] } },
    });
  });
});

describe('redactedError (GW-24)', () => {
  it('copies an upstream error with its message, suggestion and details redacted, and without its cause', () => {
    const error = new ExtensionError('permanent', 'UPSTREAM_ERROR', `Upstream "files": bad token ${GITHUB_TOKEN}`, {
      suggestion: `Rotate ${AWS_KEY_ID}`,
      details: { upstream: 'files', upstream_data: { password: 'Hunter2!' } },
      userActionable: true,
      cause: new Error(GITHUB_TOKEN),
    });
    const copy = redactedError(redactor, error);
    expect(ExtensionError.isInstance(copy)).toBe(true);
    const redacted = copy as ExtensionError;
    expect(redacted.toStructured()).toEqual({
      code: 'UPSTREAM_ERROR',
      category: 'permanent',
      message: `Upstream "files": bad token ${M('github-token')}`,
      suggestion: `Rotate ${M('aws-access-key-id')}`,
      details: { upstream: 'files', upstream_data: { password: M('password-field') } },
      user_actionable: true,
    });
    expect(redacted.cause).toBeUndefined();
    expect(redacted.stack).not.toContain(GITHUB_TOKEN);
  });

  it('leaves an error without secrets, and anything that is not a structured error, as it is', () => {
    const clean = new ExtensionError('transient', 'UPSTREAM_TIMEOUT', 'Upstream "files" did not answer');
    expect(redactedError(redactor, clean)).toBe(clean);
    const aborted = new DOMException(`aborted ${GITHUB_TOKEN}`, 'AbortError');
    expect(redactedError(redactor, aborted)).toBe(aborted);
  });
});
