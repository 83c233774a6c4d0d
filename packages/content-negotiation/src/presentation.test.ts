import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFeatures } from './grammar.js';
import { choosePresentation, DEFAULT_PRESENTATION, resolvePresentation } from './presentation.js';
import { CONTENT_NEGOTIATION_ID } from './schema.js';

const choose = (features: string[], defaults = DEFAULT_PRESENTATION) =>
  choosePresentation(parseFeatures(features).tags, defaults);

describe('choosePresentation (CN-8)', () => {
  it.each([
    [['agent'], 'json', 'agent'],
    [['human'], 'markdown', 'human'],
    [['agent', 'format=markdown'], 'markdown', 'agent'],
    [['human', 'format=json'], 'json', 'human'],
    [['format=text'], 'text', undefined],
    [[], 'json', undefined],
    [['agent', 'human'], 'json', undefined],
    [['human', 'format!=markdown'], 'json', 'human'],
    [['format!=json'], 'text', undefined],
    [['format!=json', 'format!=text', 'format!=markdown'], 'json', undefined],
  ] as const)('%j -> format %s, audience %s', (features, format, audience) => {
    expect(choose([...features])).toMatchObject({ format, audience });
  });

  it('uses the server default when the client says nothing, and skips excluded values', () => {
    const defaults = { format: 'markdown', verbosity: 'verbose' } as const;
    expect(choose([], defaults)).toMatchObject({ format: 'markdown', verbosity: 'verbose' });
    expect(choose(['verbosity!=verbose'], defaults)).toMatchObject({ verbosity: 'standard' });
    expect(choose(['verbosity=compact'], defaults)).toMatchObject({ verbosity: 'compact' });
    expect(choose(['agent'], defaults)).toMatchObject({ format: 'json' });
  });

  it('always chooses a registered format and verbosity, whatever arrives', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 10 }), (features) => {
        const chosen = choose(features);
        expect(['json', 'text', 'markdown']).toContain(chosen.format);
        expect(['compact', 'standard', 'verbose']).toContain(chosen.verbosity);
      }),
    );
  });
});

describe('resolvePresentation', () => {
  const id = CONTENT_NEGOTIATION_ID;

  it('gives a client that did not negotiate the defaults, ignoring any override (CN-7)', () => {
    const { presentation, warnings } = resolvePresentation({
      id: undefined,
      advertised: undefined,
      override: { features: ['human'] },
    });
    expect(presentation).toMatchObject({ negotiated: false, format: 'json', verbosity: 'standard', features: [] });
    expect(warnings).toEqual([]);
  });

  it('applies a per-call override over the advertised features (CN-9)', () => {
    const advertised = parseFeatures(['agent', 'format=json', 'verbosity=compact']);
    const { presentation } = resolvePresentation({ id, advertised, override: { features: ['format=markdown'] } });
    expect(presentation).toMatchObject({
      negotiated: true,
      id,
      format: 'markdown',
      verbosity: 'compact',
      audience: 'agent',
    });
  });

  it('ignores a malformed override with a warning, never an error (CN-4)', () => {
    const advertised = parseFeatures(['human']);
    for (const override of ['format=json', { features: 'format=json' }, null, 7]) {
      const { presentation, warnings } = resolvePresentation({ id, advertised, override });
      expect(presentation.format).toBe('markdown');
      expect(warnings).toHaveLength(1);
    }
    const { presentation, warnings } = resolvePresentation({
      id,
      advertised,
      override: { features: ['@#$%', 'verbosity=verbose'] },
    });
    expect(presentation).toMatchObject({ format: 'markdown', verbosity: 'verbose' });
    expect(warnings.map((warning) => warning.tag)).toEqual(['@#$%']);
  });
});
