import { WireError, type ExtendedClient, type ExtendedServer } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair, type TestPairOptions } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contentNegotiationClient, getAppliedFeatures } from './client.js';
import { CONTENT_NEGOTIATION_ID } from './schema.js';
import { contentNegotiationServer, render, type ContentNegotiationServerOptions } from './server.js';
import { RESULT_VARIANT_SCHEMAS } from './variants-schema.js';
import { type PresentationVerbosity } from './call-presentation.js';

const ID = CONTENT_NEGOTIATION_ID;
const weather = { temperature_c: 8, humidity_percent: 72 };
const weatherMarkdown = (data: typeof weather, verbosity: PresentationVerbosity): string =>
  verbosity === 'compact'
    ? `**${data.temperature_c} °C**`
    : `## Weather\n\n- Temperature: **${data.temperature_c} °C**`;
const forecastSchema = z.object({ temperature_c: z.number(), humidity_percent: z.number() });

function tools(server: ExtendedServer): void {
  server.registerTool('weather', { description: 'No output schema' }, (_args, ctx) =>
    render(ctx, { data: weather, markdown: weatherMarkdown }),
  );
  server.registerTool('forecast', { outputSchema: forecastSchema }, (_args, ctx) =>
    render(ctx, { data: weather, markdown: weatherMarkdown }),
  );
  server.registerTool('raw', {}, () => ({ content: [{ type: 'text', text: 'I vary nothing' }] }));
  server.registerTool('broken', {}, () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
}

const ajv = new Ajv2020({ strict: false });
const validResult = ajv.compile(JSON.parse(JSON.stringify(RESULT_VARIANT_SCHEMAS.CallToolResult)));
const validTool = ajv.compile(JSON.parse(JSON.stringify(RESULT_VARIANT_SCHEMAS.Tool)));

type Selector = { audience: string; format: string };
const sel = (audience: string, format: string): Selector => ({ audience, format });

/** What a client speaking only the draft sends: the plain SDK client's `tools/call`, `requestedOutputs` beside `name`. */
function callWithOutputs(
  client: ExtendedClient,
  name: string,
  requestedOutputs: unknown,
  meta?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return client.request('tools/call', {
    name,
    arguments: {},
    requestedOutputs,
    ...(meta === undefined ? {} : { _meta: meta }),
  });
}

async function refusal(promise: Promise<unknown>): Promise<WireError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(WireError.isInstance(error)).toBe(true);
  return error as WireError;
}

describe.each(TEST_LINES)('SEP-3279 result variants on %s', (line) => {
  let pair: TestPair | undefined;

  async function open(
    options: Omit<TestPairOptions, 'line' | 'setup'> & { server?: ContentNegotiationServerOptions },
  ): Promise<TestPair> {
    pair = await createTestPair({
      line,
      serverExtensions: [contentNegotiationServer(options.server ?? { resultVariants: true })],
      setup: tools,
      ...options,
    });
    return pair;
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('tools/list carries the draft-valid outputVariants of each tool (CN-19)', async () => {
    const { client } = await open({ clientExtensions: [] });
    const listed = (await client.request('tools/list', {})) as { tools: Record<string, unknown>[] };
    const byName = new Map(listed.tools.map((tool) => [tool.name, tool]));
    for (const tool of listed.tools) expect(validTool(tool)).toBe(true);
    const pairs = (name: string) =>
      (byName.get(name)?.outputVariants as Selector[]).map((variant) => `${variant.audience}/${variant.format}`);
    expect(pairs('weather')).toEqual(['assistant/content', 'user/content']);
    expect(pairs('forecast')).toEqual([
      'assistant/content',
      'user/content',
      'assistant/structured',
      'user/structured',
      'programmatic/structured',
    ]);
    // Each structured variant carries the tool's output schema (rendered from the same zod schema as outputSchema).
    const listedSchema = byName.get('forecast')?.outputSchema as Record<string, unknown>;
    const structured = (byName.get('forecast')?.outputVariants as { schema?: Record<string, unknown> }[]).slice(2);
    for (const variant of structured) {
      expect(variant.schema?.properties).toEqual(listedSchema.properties);
      expect(variant.schema?.required).toEqual(listedSchema.required);
      expect(ajv.validate(variant.schema ?? {}, weather)).toBe(true);
    }
  });

  it('a client speaking only the draft gets exactly the outputs it requested, in order (CN-20, CN-22)', async () => {
    const { client } = await open({ clientExtensions: [] });
    const result = await callWithOutputs(client, 'forecast', [
      sel('programmatic', 'structured'),
      sel('user', 'content'),
      sel('assistant', 'content'),
    ]);
    expect(validResult(result)).toBe(true);
    expect(result.outputs).toEqual([
      { audience: 'programmatic', format: 'structured', structuredContent: weather },
      { audience: 'user', format: 'content', content: [{ type: 'text', text: weatherMarkdown(weather, 'standard') }] },
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: JSON.stringify(weather) }] },
    ]);
    // The era's own fields are the server's default answer, untouched (CN-20, CN-7).
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(weather) }]);
    expect(result.structuredContent).toEqual(weather);
    expect((result._meta as Record<string, unknown> | undefined)?.[ID]).toBeUndefined();
  });

  it('structured outputs are valid against the schema the variant declares (CN-23)', async () => {
    const { client } = await open({ clientExtensions: [] });
    const result = await callWithOutputs(client, 'forecast', [
      sel('assistant', 'structured'),
      sel('user', 'structured'),
    ]);
    const outputs = result.outputs as { structuredContent: unknown }[];
    expect(outputs).toHaveLength(2);
    for (const output of outputs) expect(forecastSchema.parse(output.structuredContent)).toEqual(weather);
  });

  it('a client speaking only our negotiation gets the same answer as before, and no outputs (CN-24)', async () => {
    const { client } = await open({ clientExtensions: [contentNegotiationClient({ features: ['human'] })] });
    const result = await client.callTool('forecast');
    expect(result.content).toEqual([{ type: 'text', text: weatherMarkdown(weather, 'standard') }]);
    expect(getAppliedFeatures(result)?.format).toBe('markdown');
    expect(result.outputs).toBeUndefined();
  });

  it('a client speaking both gets one answer: selection by the draft, rendering by its tags (CN-24)', async () => {
    const { client } = await open({
      clientExtensions: [contentNegotiationClient({ features: ['agent', 'verbosity=compact'] })],
    });
    const result = await callWithOutputs(client, 'forecast', [sel('user', 'content'), sel('assistant', 'content')]);
    expect(validResult(result)).toBe(true);
    // The legacy fields and the echo are what the tags ask for...
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(weather) }]);
    expect((result._meta as Record<string, unknown>)[ID]).toEqual({ features: ['format=json', 'verbosity=compact'] });
    // ...and each output is rendered for its audience at the client's verbosity.
    expect(result.outputs).toEqual([
      { audience: 'user', format: 'content', content: [{ type: 'text', text: '**8 °C**' }] },
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: JSON.stringify(weather) }] },
    ]);
  });

  it('a tool that does not render gives its own content to every content output (CN-22)', async () => {
    const { client } = await open({ clientExtensions: [] });
    const result = await callWithOutputs(client, 'raw', [sel('user', 'content')]);
    expect(result.outputs).toEqual([
      { audience: 'user', format: 'content', content: [{ type: 'text', text: 'I vary nothing' }] },
    ]);
  });

  it('a failed call carries its error in the outputs it can give (CN-23)', async () => {
    const { client } = await open({ clientExtensions: [] });
    const result = await callWithOutputs(client, 'broken', [sel('assistant', 'content')]);
    expect(result.isError).toBe(true);
    expect(result.outputs).toEqual([
      { audience: 'assistant', format: 'content', content: [{ type: 'text', text: 'it broke' }] },
    ]);
  });

  it.each([
    ['an undeclared pair', [sel('programmatic', 'content')], '/requestedOutputs/0'],
    ['a structured output of a tool without an output schema', [sel('assistant', 'structured')], '/requestedOutputs/0'],
    [
      'an extension audience never negotiated',
      [sel('io.modelcontextprotocol/ui', 'structured')],
      '/requestedOutputs/0',
    ],
    ['a repeated selector', [sel('user', 'content'), sel('user', 'content')], '/requestedOutputs/1'],
    ['a non-array', sel('user', 'content'), '/requestedOutputs'],
  ])('refuses %s as invalid params before the tool runs (CN-21)', async (_what, requested, pointer) => {
    const { client } = await open({ clientExtensions: [] });
    const error = await refusal(callWithOutputs(client, 'weather', requested));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('requestedOutputs');
    expect(error.data).toMatchObject({
      category: 'invalid_input',
      code: 'INVALID_REQUESTED_OUTPUTS',
      details: { pointer },
    });
  });

  it('without resultVariants nothing changes: no outputVariants, requestedOutputs ignored (CN-19, CN-20)', async () => {
    const { client } = await open({ server: {}, clientExtensions: [] });
    const listed = (await client.request('tools/list', {})) as { tools: Record<string, unknown>[] };
    expect(listed.tools.every((tool) => !('outputVariants' in tool))).toBe(true);
    const result = await callWithOutputs(client, 'forecast', [sel('io.modelcontextprotocol/ui', 'structured')]);
    expect(result.outputs).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(weather) }]);
  });
});
