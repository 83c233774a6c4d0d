import fc from 'fast-check';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { parseSettings, parseSettingsVersion, readSettings } from './settings.js';

const schema = Type.Object({ version: Type.String(), max_items: Type.Optional(Type.Integer({ minimum: 1 })) });

describe('extension settings', () => {
  it('parses "<major>.<minor>" and nothing else', () => {
    expect(parseSettingsVersion('1.0')).toEqual({ major: 1, minor: 0 });
    expect(parseSettingsVersion('12.34')).toEqual({ major: 12, minor: 34 });
    for (const bad of ['1', '1.0.0', 'v1.0', '01.0', '', 1, null, {}])
      expect(parseSettingsVersion(bad)).toBeUndefined();
  });

  it('accepts known majors and ignores unknown fields', () => {
    const result = parseSettings(
      { version: '1.7', max_items: 3, future_field: { nested: true } },
      { schema, majors: [1] },
    );
    expect(result).toMatchObject({ ok: true, version: { major: 1, minor: 7 } });
  });

  it('reads an empty object (SEP-2133: no settings) as the lowest major', () => {
    expect(parseSettings({}, { majors: [2, 1] })).toMatchObject({ ok: true, version: { major: 1, minor: 0 } });
  });

  it('treats an unknown major as not negotiated', () => {
    expect(parseSettings({ version: '2.0' }, { schema, majors: [1] })).toMatchObject({
      ok: false,
      pointer: '/version',
    });
  });

  it('names the field of the first violation', () => {
    const result = parseSettings({ version: '1.0', max_items: 0 }, { schema, majors: [1] });
    expect(result).toMatchObject({ ok: false, pointer: '/max_items' });
  });

  it('warns through the logger instead of throwing', () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    expect(readSettings('com.example/x', 'not an object', { majors: [1] }, logger)).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('com.example/x not negotiated')]);
  });

  it('never throws on arbitrary settings (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const result = parseSettings(raw, { schema, majors: [1] });
        if (result.ok) expect(schema).toBeDefined();
        else expect(typeof result.reason).toBe('string');
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.object(), fc.string(), (extra, version) => {
        parseSettings({ ...extra, version }, { schema, majors: [1] });
      }),
    );
  });
});
