import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { genericMarkdown, genericText, renderPrompt, renderResource, renderResult, renderText } from './render.js';
import { PRESENTATION_FORMATS, PRESENTATION_VERBOSITIES, type CallPresentation } from './call-presentation.js';

const every: CallPresentation[] = PRESENTATION_FORMATS.flatMap((format) =>
  PRESENTATION_VERBOSITIES.map((verbosity) => ({ format, verbosity })),
);
const data = {
  ticket: {
    id: 'T-1',
    title: 'Fix *the* build',
    tags: ['ci', 'urgent'],
    owner: { name: 'alice', team: { name: 'core' } },
  },
};

describe('renderResult (CN-10, CN-11, CN-12)', () => {
  it('json: structuredContent plus its serialized text, indented only when verbose', () => {
    expect(renderResult({ format: 'json', verbosity: 'standard' }, { data }, false)).toEqual({
      content: [{ type: 'text', text: JSON.stringify(data) }],
      structuredContent: data,
    });
    const verbose = renderResult({ format: 'json', verbosity: 'verbose' }, { data }, false);
    expect(verbose.content[0]?.text).toBe(JSON.stringify(data, null, 2));
  });

  it('markdown and text: one text block from the renderer, at the verbosity asked for', () => {
    const markdown = (value: typeof data, verbosity: string) => `### ${value.ticket.id} (${verbosity})`;
    expect(renderResult({ format: 'markdown', verbosity: 'compact' }, { data, markdown }, false)).toEqual({
      content: [{ type: 'text', text: '### T-1 (compact)' }],
    });
    expect(
      renderResult(
        { format: 'text', verbosity: 'verbose' },
        { data, text: (value, verbosity) => `${value.ticket.id} ${verbosity}` },
        false,
      ),
    ).toEqual({
      content: [{ type: 'text', text: 'T-1 verbose' }],
    });
  });

  it('keeps structuredContent in every variant when the tool has an output schema', () => {
    for (const presentation of every) {
      expect(renderResult(presentation, { data }, true).structuredContent).toBe(data);
    }
  });

  it('never returns content: [] nor structuredContent: null, for any JSON object', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.constantFrom(...every),
        fc.boolean(),
        (value, presentation, structured) => {
          const result = renderResult(presentation, { data: value }, structured);
          expect(result.content).toHaveLength(1);
          expect(result.content[0]?.type).toBe('text');
          expect(typeof result.content[0]?.text).toBe('string');
          expect(result.structuredContent === undefined || result.structuredContent === value).toBe(true);
          if (presentation.format === 'json')
            expect(JSON.parse(String(result.content[0]?.text))).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses data that is not an object (it would become structuredContent)', () => {
    for (const bad of [null, [], 'x', 1]) {
      expect(() => renderResult({ format: 'json', verbosity: 'standard' }, { data: bad as never }, false)).toThrow(
        TypeError,
      );
    }
  });
});

describe('generic renderers', () => {
  it('go deeper as verbosity grows and summarize beyond', () => {
    expect(genericMarkdown(data, 'compact')).toBe('- **ticket**: (4 fields)');
    expect(genericMarkdown(data, 'standard')).toBe(
      [
        '- **ticket**:',
        '  - **id**: T-1',
        '  - **title**: Fix \\*the\\* build',
        '  - **tags**:',
        '    - **1**: ci',
        '    - **2**: urgent',
        '  - **owner**:',
        '    - **name**: alice',
        '    - **team**: (1 field)',
      ].join('\n'),
    );
    expect(genericMarkdown(data, 'verbose')).toContain('      - **name**: core');
    expect(genericText(data, 'standard')).toContain('  title: Fix *the* build');
    expect(genericText(data, 'standard')).not.toContain('**');
  });

  it('keep values on one line', () => {
    expect(genericText({ note: 'two\nlines' }, 'standard')).toBe('note: two lines');
    expect(genericMarkdown({ note: 'a|b\nc' }, 'standard')).toBe('- **note**: a\\|b c');
  });
});

describe('resources and prompts vary too (CN-13)', () => {
  it('a resource carries the MIME type of the format and the echo', () => {
    const echo = { 'io.github.mcp-ext/content-negotiation': { features: ['format=markdown', 'verbosity=standard'] } };
    expect(
      renderResource({ format: 'markdown', verbosity: 'standard', resultMeta: echo }, { uri: 'tracker://T-1', data }),
    ).toEqual({
      contents: [{ uri: 'tracker://T-1', mimeType: 'text/markdown', text: genericMarkdown(data, 'standard') }],
      _meta: echo,
    });
    expect(
      renderResource({ format: 'json', verbosity: 'compact' }, { uri: 'tracker://T-1', data }).contents[0],
    ).toMatchObject({
      mimeType: 'application/json',
      text: JSON.stringify(data),
    });
  });

  it('a prompt renders its data in the format after the preamble', () => {
    const prompt = renderPrompt(
      { format: 'text', verbosity: 'compact' },
      { data, preamble: 'Summarize this ticket.', description: 'Ticket summary' },
    );
    expect(prompt).toEqual({
      description: 'Ticket summary',
      messages: [
        { role: 'user', content: { type: 'text', text: `Summarize this ticket.\n\n${genericText(data, 'compact')}` } },
      ],
    });
    expect(renderText({ format: 'json', verbosity: 'compact' }, { data })).toBe(JSON.stringify(data));
  });
});
