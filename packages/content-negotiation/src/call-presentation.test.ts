import { describe, expect, it } from 'vitest';
import { getCallPresentation, setCallPresentation } from './call-presentation.js';

describe('call presentation slot', () => {
  it('is empty until set, and keeps only format and verbosity', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    expect(getCallPresentation(ctx)).toBeUndefined();
    setCallPresentation(ctx, { format: 'markdown', verbosity: 'compact', extra: true } as never);
    expect(getCallPresentation(ctx)).toEqual({ format: 'markdown', verbosity: 'compact' });
  });

  it('carries the result _meta entries that describe the presentation', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    setCallPresentation(ctx, {
      format: 'json',
      verbosity: 'standard',
      resultMeta: { 'io.github.mcp-ext/x': { features: ['format=json'] } },
    });
    expect(getCallPresentation(ctx)?.resultMeta).toEqual({ 'io.github.mcp-ext/x': { features: ['format=json'] } });
  });

  it('is shared by two installed copies of the package (a global symbol)', () => {
    const ctx = { locals: new Map<symbol, unknown>() };
    ctx.locals.set(Symbol.for('io.github.mcp-ext/content-negotiation/call-presentation'), {
      format: 'json',
      verbosity: 'verbose',
    });
    expect(getCallPresentation(ctx)).toEqual({ format: 'json', verbosity: 'verbose' });
  });
});
