import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseFeatures } from './grammar.js';
import { DEFAULT_PRESENTATION } from './presentation.js';
import { contentNegotiationServer } from './server.js';
import { audiencePresentation, checkRequestedOutputs, declaredVariants, outputsFor } from './variants.js';
import { RESULT_VARIANT_SCHEMAS, type OutputVariant } from './variants-schema.js';

/** An example of the draft, as copied into the fixtures (see test-fixtures/sep-3279/README.md). */
function example(name: string): Record<string, unknown> {
  const url = new URL(`./test-fixtures/sep-3279/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
}

const ajv = new Ajv2020({ strict: false });
const validators = Object.fromEntries(
  Object.entries(RESULT_VARIANT_SCHEMAS).map(([name, schema]) => [
    name,
    ajv.compile(JSON.parse(JSON.stringify(schema))),
  ]),
) as Record<keyof typeof RESULT_VARIANT_SCHEMAS, ReturnType<typeof ajv.compile>>;
const valid = (name: keyof typeof RESULT_VARIANT_SCHEMAS, value: unknown): boolean => validators[name](value) === true;

const PARAMS = [
  'code-mode-params',
  'structured-model-params',
  'user-media-params',
  'host-structured-params',
  'apps-params',
];
const RESULTS = ['code-mode-result', 'user-media-result', 'host-structured-result', 'apps-result'];
const forecastSchema = {
  type: 'object',
  properties: { temperature_c: { type: 'number' } },
  required: ['temperature_c'],
};

describe("the draft's published examples against this package's schemas (SEP-3279)", () => {
  it.each(PARAMS)('tools/call params %s validate, requestedOutputs included', (name) => {
    const params = example(name);
    expect(Array.isArray(params.requestedOutputs)).toBe(true);
    expect(valid('CallToolParams', params)).toBe(true);
  });

  it('the whole conversational request and response validate', () => {
    const request = example('conversational-request') as { params: unknown };
    const response = example('conversational-response') as { result: unknown };
    expect(valid('CallToolParams', request.params)).toBe(true);
    expect(valid('CallToolResult', response.result)).toBe(true);
  });

  it.each(RESULTS)('result %s validates, every output one of the two formats', (name) => {
    const result = example(name) as { outputs: { format: string }[] };
    expect(valid('CallToolResult', result)).toBe(true);
    expect(result.outputs.every((output) => valid('ToolResultOutput', output))).toBe(true);
  });

  it("the App tool's declaration validates", () => {
    expect(valid('Tool', example('apps-tool'))).toBe(true);
  });

  it("the draft's App request is a valid selection of the App tool's variants (CN-21)", () => {
    const declared = (example('apps-tool') as { outputVariants: OutputVariant[] }).outputVariants;
    const check = checkRequestedOutputs(example('apps-params').requestedOutputs, declared);
    expect(check).toEqual({
      ok: true,
      selectors: [
        { audience: 'assistant', format: 'content' },
        { audience: 'io.modelcontextprotocol/ui', format: 'structured' },
      ],
    });
  });

  it('the schemas reject what the draft rules out', () => {
    expect(valid('OutputSelector', { audience: 'assistant', format: 'markdown' })).toBe(false);
    expect(valid('OutputSelector', { format: 'content' })).toBe(false);
    expect(valid('ToolResultOutput', { audience: 'user', format: 'content' })).toBe(false);
    expect(valid('ToolResultOutput', { audience: 'user', format: 'structured' })).toBe(false);
    expect(valid('Tool', { name: 't' })).toBe(false);
    expect(valid('CallToolResult', { content: [] })).toBe(false);
  });
});

describe('declared variants (CN-19)', () => {
  it('a tool without an output schema declares the two content variants', () => {
    expect(declaredVariants({})).toEqual([
      { audience: 'assistant', format: 'content' },
      { audience: 'user', format: 'content' },
    ]);
  });

  it('an output schema adds the structured variant of every core audience, with that schema', () => {
    const declared = declaredVariants({ outputJsonSchema: forecastSchema });
    expect(declared.map((variant) => `${variant.audience}/${variant.format}`)).toEqual([
      'assistant/content',
      'user/content',
      'assistant/structured',
      'user/structured',
      'programmatic/structured',
    ]);
    expect(declared.filter((variant) => variant.format === 'structured').map((variant) => variant.schema)).toEqual([
      forecastSchema,
      forecastSchema,
      forecastSchema,
    ]);
    expect(valid('Tool', { name: 'forecast', outputVariants: declared })).toBe(true);
  });
});

describe('checking requestedOutputs (CN-21)', () => {
  const declared = declaredVariants({ outputJsonSchema: forecastSchema });
  const reason = (raw: unknown) => {
    const check = checkRequestedOutputs(raw, declared);
    return check.ok ? 'ok' : `${check.pointer}: ${check.reason}`;
  };

  it('keeps the selectors in the order requested, without extra members', () => {
    expect(
      checkRequestedOutputs(
        [
          { audience: 'programmatic', format: 'structured', note: 'x' },
          { audience: 'user', format: 'content' },
        ],
        declared,
      ),
    ).toEqual({
      ok: true,
      selectors: [
        { audience: 'programmatic', format: 'structured' },
        { audience: 'user', format: 'content' },
      ],
    });
  });

  it.each([
    [{ audience: 'assistant', format: 'content' }, '/requestedOutputs: must be an array'],
    [[], '/requestedOutputs: must select at least one output'],
    [[{ audience: 'assistant' }], '/requestedOutputs/0: must be an object'],
    [['assistant/content'], '/requestedOutputs/0: must be an object'],
    [
      [
        { audience: 'user', format: 'content' },
        { audience: 'user', format: 'content' },
      ],
      '/requestedOutputs/1: repeats user/content',
    ],
    [[{ audience: 'programmatic', format: 'content' }], '/requestedOutputs/0: programmatic/content is not a variant'],
    [
      [{ audience: 'io.modelcontextprotocol/ui', format: 'structured' }],
      '/requestedOutputs/0: io.modelcontextprotocol/ui/structured is not a variant',
    ],
  ])('refuses %j', (raw, expected) => {
    expect(reason(raw)).toContain(expected);
  });

  it('refuses a structured selector on a tool without an output schema', () => {
    expect(checkRequestedOutputs([{ audience: 'assistant', format: 'structured' }], declaredVariants({})).ok).toBe(
      false,
    );
  });
});

describe('rendering outputs (CN-22, CN-23)', () => {
  const data = { temperature_c: 8 };
  const rendered = { data, markdown: () => '**8 °C**', text: () => '8 C' };
  const source = (features: string[], isError = false) => ({
    result: { content: [{ type: 'text', text: 'legacy' }], structuredContent: data, ...(isError ? { isError } : {}) },
    rendered,
    features: parseFeatures(features).tags,
    defaults: DEFAULT_PRESENTATION,
  });

  it('assistant reads as agent (json), user as human (markdown), structured carries the data', () => {
    expect(
      outputsFor(
        [
          { audience: 'assistant', format: 'content' },
          { audience: 'user', format: 'content' },
          { audience: 'programmatic', format: 'structured' },
        ],
        source([]),
      ),
    ).toEqual([
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: JSON.stringify(data) }] },
      { audience: 'user', format: 'content', content: [{ type: 'text', text: '**8 °C**' }] },
      { audience: 'programmatic', format: 'structured', structuredContent: data },
    ]);
  });

  it('the audience replaces agent/human; format= and verbosity= still apply', () => {
    expect(audiencePresentation(parseFeatures(['human']).tags, 'assistant', DEFAULT_PRESENTATION)).toEqual({
      format: 'json',
      verbosity: 'standard',
    });
    expect(
      audiencePresentation(parseFeatures(['format=text', 'verbosity=compact']).tags, 'user', DEFAULT_PRESENTATION),
    ).toEqual({
      format: 'text',
      verbosity: 'compact',
    });
  });

  it('a failure is not re-rendered: its own content, and no structured output without a structured error', () => {
    const failed = { ...source([], true), result: { content: [{ type: 'text', text: 'boom' }], isError: true } };
    expect(
      outputsFor(
        [
          { audience: 'user', format: 'content' },
          { audience: 'programmatic', format: 'structured' },
        ],
        failed,
      ),
    ).toEqual([{ audience: 'user', format: 'content', content: [{ type: 'text', text: 'boom' }] }]);
  });

  it('without render, the content outputs carry the handler content', () => {
    expect(outputsFor([{ audience: 'assistant', format: 'content' }], { ...source([]), rendered: undefined })).toEqual([
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: 'legacy' }] },
    ]);
  });
});

describe('the resultVariants option', () => {
  it('must be a boolean, named in the error', () => {
    expect(() => contentNegotiationServer({ resultVariants: 'yes' as never })).toThrow(/"resultVariants"/);
  });

  it('lists outputVariants only when on', () => {
    expect(contentNegotiationServer().toolFields).toBeUndefined();
    expect(contentNegotiationServer({ resultVariants: true }).toolFields?.({ name: 't' })).toEqual({
      outputVariants: declaredVariants({}),
    });
  });
});
