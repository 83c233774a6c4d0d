import type { ClientExtension, ExtendedServer, Logger } from '@ext/core';
import { createTestPair, TEST_LINES, type TestPair, type TestPairOptions } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contentNegotiationClient, getAppliedFeatures, overrideFeatures } from './client.js';
import { serializeFeatures } from './grammar.js';
import { CONTENT_NEGOTIATION_DRAFT_ID, CONTENT_NEGOTIATION_ID } from './schema.js';
import {
  contentNegotiationServer,
  getPresentation,
  markApplied,
  render,
  type ContentNegotiationServerOptions,
} from './server.js';
import { type PresentationVerbosity } from './call-presentation.js';

const ID = CONTENT_NEGOTIATION_ID;
const weather = { temperature_c: 8, humidity_percent: 72 };
const weatherMarkdown = (data: typeof weather, verbosity: PresentationVerbosity): string =>
  verbosity === 'compact'
    ? `**${data.temperature_c} °C**`
    : `## Weather\n\n- Temperature: **${data.temperature_c} °C**\n- Humidity: ${data.humidity_percent} %`;
const forecastSchema = z.object({ temperature_c: z.number(), humidity_percent: z.number() });

function tools(server: ExtendedServer): void {
  server.registerTool('weather', { description: 'Current weather' }, (_args, ctx) =>
    render(ctx, { data: weather, markdown: weatherMarkdown }),
  );
  server.registerTool(
    'forecast',
    { description: 'Forecast, with an output schema', outputSchema: forecastSchema },
    (_args, ctx) => render(ctx, { data: weather, markdown: weatherMarkdown }),
  );
  server.registerTool('raw', {}, () => ({ content: [{ type: 'text', text: 'I vary nothing' }] }));
  server.registerTool('presentation', {}, (_args, ctx) => {
    const presentation = getPresentation(ctx);
    if (presentation.features.some((tag) => tag.name === 'sampling')) markApplied(ctx, 'sampling');
    return {
      content: [{ type: 'text', text: 'see structuredContent' }],
      structuredContent: { ...presentation, features: serializeFeatures(presentation.features) },
    };
  });
}

/** A client half the application could not build with `contentNegotiationClient`: arbitrary ids and settings. */
function rawClient(settings: Record<string, unknown>, ids: readonly string[] = [ID]): ClientExtension {
  return { side: 'client', name: '@ext/content-negotiation', ids, settings: { version: '1.0', ...settings } };
}

function recorder(): Logger & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

describe.each(TEST_LINES)('end to end on %s (CN-18: session-scoped on legacy, per request on 2026-07-28)', (line) => {
  let pair: TestPair | undefined;

  async function open(
    options: Omit<TestPairOptions, 'line' | 'setup'> & { server?: ContentNegotiationServerOptions },
  ): Promise<TestPair> {
    pair = await createTestPair({
      line,
      serverExtensions: [contentNegotiationServer(options.server)],
      setup: tools,
      ...options,
    });
    return pair;
  }

  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  describe("the proposal's cases", () => {
    it('agent + format=json: structuredContent plus its JSON text, echoed (CN-8, CN-10, CN-14)', async () => {
      const { client } = await open({
        clientExtensions: [contentNegotiationClient({ features: ['agent', 'format=json'] })],
      });
      expect(client.negotiated(CONTENT_NEGOTIATION_ID)?.id).toBe(ID);
      const result = await client.callTool('weather');
      expect(result.structuredContent).toEqual(weather);
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(weather) }]);
      expect(result._meta?.[ID]).toEqual({ features: ['format=json', 'verbosity=standard'] });
      expect(getAppliedFeatures(result)).toEqual({
        features: ['format=json', 'verbosity=standard'],
        format: 'json',
        verbosity: 'standard',
      });
    });

    it('human + format=markdown: markdown text from the same handler, no structuredContent (CN-8, CN-11)', async () => {
      const { client } = await open({
        clientExtensions: [contentNegotiationClient({ features: ['human', 'format=markdown'] })],
      });
      const result = await client.callTool('weather');
      expect(result.content).toEqual([{ type: 'text', text: weatherMarkdown(weather, 'standard') }]);
      expect(result.structuredContent).toBeUndefined();
      expect(getAppliedFeatures(result)?.format).toBe('markdown');
    });

    it('human alone means markdown; verbosity=compact is honoured', async () => {
      const { client } = await open({
        clientExtensions: [contentNegotiationClient({ features: ['human', 'verbosity=compact'] })],
      });
      const result = await client.callTool('weather');
      expect(result.content).toEqual([{ type: 'text', text: '**8 °C**' }]);
      expect(result._meta?.[ID]).toEqual({ features: ['format=markdown', 'verbosity=compact'] });
    });

    it('not declared: a client without the extension gets the server default shape and no echo (CN-7)', async () => {
      const { client } = await open({ clientExtensions: [] });
      expect(client.negotiated(CONTENT_NEGOTIATION_ID)).toBeUndefined();
      const result = await client.callTool('weather');
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(weather) }]);
      expect(result.structuredContent).toEqual(weather);
      expect(result._meta?.[ID]).toBeUndefined();
      expect(getAppliedFeatures(result)).toBeUndefined();
    });

    it("not declared: the server's configured default applies", async () => {
      const { client } = await open({
        clientExtensions: [],
        server: { defaultFormat: 'markdown', defaultVerbosity: 'compact' },
      });
      expect((await client.callTool('weather')).content).toEqual([{ type: 'text', text: '**8 °C**' }]);
    });

    it('malformed tags @#$% and format==json are dropped with a warning, never an error (CN-4)', async () => {
      const logger = recorder();
      const { client } = await open({
        clientExtensions: [rawClient({ features: ['agent', '@#$%', 'format==json', 42] })],
        serverOptions: { logger },
      });
      const result = await client.callTool('weather');
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual(weather);
      expect(result._meta?.[ID]).toEqual({ features: ['format=json', 'verbosity=standard'] });
      const warnings = logger.messages.join('\n');
      expect(warnings).toContain('"@#$%"');
      expect(warnings).toContain('"format==json"');
      expect(warnings).toContain('a feature tag must be a string');
    });
  });

  describe('negotiation', () => {
    it('an unknown settings major is not negotiated: default shape, no echo (CN-1)', async () => {
      const { client } = await open({ clientExtensions: [rawClient({ version: '2.0', features: ['human'] })] });
      const result = await client.callTool('weather');
      expect(result.structuredContent).toEqual(weather);
      expect(result._meta?.[ID]).toBeUndefined();
    });

    it('a per-call override in params._meta replaces the declared dimension for that call only (CN-9)', async () => {
      const { client } = await open({
        clientExtensions: [contentNegotiationClient({ features: ['agent', 'verbosity=compact'] })],
      });
      const human = await client.callTool('weather', {}, { meta: overrideFeatures(['human']) });
      expect(human.content).toEqual([{ type: 'text', text: '**8 °C**' }]);
      expect(getAppliedFeatures(human)?.features).toEqual(['format=markdown', 'verbosity=compact']);
      const again = await client.callTool('weather');
      expect(again.structuredContent).toEqual(weather);
      const presentation = (
        await client.callTool('presentation', {}, { meta: overrideFeatures(['verbosity=verbose']) })
      ).structuredContent;
      expect(presentation).toMatchObject({
        audience: 'agent',
        format: 'json',
        verbosity: 'verbose',
        features: ['agent', 'verbosity=verbose'],
      });
    });

    it('a malformed override is ignored with a warning (CN-4)', async () => {
      const logger = recorder();
      const { client } = await open({
        clientExtensions: [contentNegotiationClient({ features: ['human'] })],
        serverOptions: { logger },
      });
      const result = await client.callTool('weather', {}, { meta: { [ID]: { features: 'format=json' } } });
      expect(result.isError).toBeUndefined();
      expect(getAppliedFeatures(result)?.format).toBe('markdown');
      expect(logger.messages.join('\n')).toContain('per-call override');
    });

    it('mirrors the declared MCP capabilities as tags (CN-16)', async () => {
      const { client } = await open({
        clientExtensions: [
          contentNegotiationClient({
            features: ['agent'],
            capabilities: { sampling: {}, roots: { listChanged: true } },
          }),
        ],
      });
      const result = await client.callTool('presentation');
      expect(result.structuredContent).toMatchObject({ features: ['agent', 'sampling', 'roots'] });
      expect(getAppliedFeatures(result)?.features).toEqual(['sampling']);
    });

    it('echoes an empty list when the handler varied nothing (CN-14)', async () => {
      const { client } = await open({ clientExtensions: [contentNegotiationClient({ features: ['human'] })] });
      const result = await client.callTool('raw');
      expect(result.content).toEqual([{ type: 'text', text: 'I vary nothing' }]);
      expect(result._meta?.[ID]).toEqual({ features: [] });
    });

    it('does not accept the draft identifier unless the server opts in (CN-1)', async () => {
      const { client } = await open({
        clientExtensions: [rawClient({ features: ['human'] }, [CONTENT_NEGOTIATION_DRAFT_ID])],
        clientOptions: { allowReservedIds: [CONTENT_NEGOTIATION_DRAFT_ID] },
      });
      const result = await client.callTool('weather');
      expect(result.structuredContent).toEqual(weather);
      expect(result._meta?.[ID]).toBeUndefined();
      expect(result._meta?.[CONTENT_NEGOTIATION_DRAFT_ID]).toBeUndefined();
    });

    it('accepts the draft identifier when opted in, and answers under it (CN-1)', async () => {
      const { client } = await open({
        server: { acceptDraftIdentifier: true },
        clientExtensions: [rawClient({ features: ['human'] }, [CONTENT_NEGOTIATION_DRAFT_ID])],
        clientOptions: { allowReservedIds: [CONTENT_NEGOTIATION_DRAFT_ID] },
      });
      expect(Object.keys(client.serverExtensions())).toEqual([ID, CONTENT_NEGOTIATION_DRAFT_ID]);
      const result = await client.callTool(
        'weather',
        {},
        { meta: { [CONTENT_NEGOTIATION_DRAFT_ID]: { features: ['verbosity=compact'] } } },
      );
      expect(result.content).toEqual([{ type: 'text', text: '**8 °C**' }]);
      expect(result._meta?.[CONTENT_NEGOTIATION_DRAFT_ID]).toEqual({
        features: ['format=markdown', 'verbosity=compact'],
      });
      expect(result._meta?.[ID]).toBeUndefined();
      expect(getAppliedFeatures(result)?.format).toBe('markdown');
    });

    it('prefers this project’s identifier when the client advertises both (CN-1)', async () => {
      const { client } = await open({
        server: { acceptDraftIdentifier: true },
        clientExtensions: [rawClient({ features: ['human'] }, [CONTENT_NEGOTIATION_DRAFT_ID, ID])],
        clientOptions: { allowReservedIds: [CONTENT_NEGOTIATION_DRAFT_ID] },
      });
      const result = await client.callTool('weather');
      expect(result._meta?.[ID]).toEqual({ features: ['format=markdown', 'verbosity=standard'] });
      expect(result._meta?.[CONTENT_NEGOTIATION_DRAFT_ID]).toBeUndefined();
    });
  });

  describe('tools with an output schema (CN-12)', () => {
    const formats = ['json', 'markdown', 'text'] as const;
    const verbosities = ['compact', 'standard', 'verbose'] as const;

    it.each(formats.flatMap((format) => verbosities.map((verbosity) => [format, verbosity] as const)))(
      'keeps valid structuredContent for format=%s, verbosity=%s',
      async (format, verbosity) => {
        const { client } = await open({ clientExtensions: [contentNegotiationClient({ features: ['agent'] })] });
        // Listing first lets the SDK clients check results against the output schema.
        await client.listTools();
        const result = await client.callTool(
          'forecast',
          {},
          { meta: overrideFeatures([`format=${format}`, `verbosity=${verbosity}`]) },
        );
        expect(result.isError).toBeUndefined();
        expect(forecastSchema.parse(result.structuredContent)).toEqual(weather);
        expect(result.content).toHaveLength(1);
        expect(getAppliedFeatures(result)).toMatchObject({ format, verbosity });
      },
    );
  });
});
