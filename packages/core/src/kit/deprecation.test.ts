import { afterEach, describe, expect, it, vi } from 'vitest';
import { deprecatedAliases, renamedKeys, warnDeprecated } from './index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function warnings() {
  return vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
}

describe('deprecated spellings', () => {
  it('warnDeprecated emits one DeprecationWarning per place and old name', () => {
    const emitted = warnings();
    warnDeprecated('fooServer', 'max_items', 'maxItems');
    warnDeprecated('fooServer', 'max_items', 'maxItems');
    warnDeprecated('barServer', 'max_items', 'maxItems');
    expect(emitted.mock.calls).toEqual([
      [
        'fooServer: "max_items" is deprecated and goes in the next major; use "maxItems"',
        { type: 'DeprecationWarning', code: 'EXT_DEPRECATED_NAME' },
      ],
      [
        'barServer: "max_items" is deprecated and goes in the next major; use "maxItems"',
        { type: 'DeprecationWarning', code: 'EXT_DEPRECATED_NAME' },
      ],
    ]);
  });

  it('renamedKeys moves old keys to their new names, warns once per key, and leaves the input alone', () => {
    const emitted = warnings();
    const input = { max_calls: 3, tool: 't' };
    expect(renamedKeys('grantOptions', input, { max_calls: 'maxCalls', duration_seconds: 'durationSeconds' })).toEqual({
      maxCalls: 3,
      tool: 't',
    });
    expect(input).toEqual({ max_calls: 3, tool: 't' });
    expect(renamedKeys('grantOptions', { max_calls: 1, maxCalls: 2 }, { max_calls: 'maxCalls' })).toEqual({
      maxCalls: 2,
    });
    expect(renamedKeys('grantOptions', { maxCalls: 5 }, { max_calls: 'maxCalls' })).toEqual({ maxCalls: 5 });
    expect(renamedKeys<unknown>('grantOptions', undefined, { max_calls: 'maxCalls' })).toBeUndefined();
    const handedOut = deprecatedAliases('grantOptions', { maxCalls: 4 }, { max_calls: 'maxCalls' });
    expect(renamedKeys('grantOptions', handedOut, { max_calls: 'maxCalls' })).toEqual({ maxCalls: 4 });
    expect(emitted).toHaveBeenCalledTimes(1);
    expect(String(emitted.mock.calls[0]?.[0])).toContain('"max_calls"');
  });

  it('deprecatedAliases reads through to the new name, hidden from keys and JSON, warning on first read', () => {
    const emitted = warnings();
    const request = deprecatedAliases('ConfirmationRequest', { riskLevel: 'safe' }, { risk_level: 'riskLevel' });
    expect(Object.keys(request)).toEqual(['riskLevel']);
    expect(JSON.stringify(request)).toBe('{"riskLevel":"safe"}');
    expect({ ...request }).toEqual({ riskLevel: 'safe' });
    expect(emitted).not.toHaveBeenCalled();
    expect((request as { risk_level?: string }).risk_level).toBe('safe');
    expect((request as { risk_level?: string }).risk_level).toBe('safe');
    expect(emitted).toHaveBeenCalledTimes(1);
  });
});
