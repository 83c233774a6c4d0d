/**
 * The tools of the official conformance suite's 2025 line: content of every
 * kind, logging, errors and progress, elicitation, a JSON Schema 2020-12
 * input, and sampling. Each runs through the extension pipeline.
 */
import type { ExtendedServer } from '@ext/core';
import { fromJsonSchema, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { pause, RED_PIXEL_PNG, SILENT_WAV, text } from './media.js';

/** The form of `test_elicitation_sep1330_enums`: every enum variant the 2025-11-25 elicitation schema allows. */
const ENUM_FORM = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Untitled single-select',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
} as const;

/**
 * The input of `json_schema_2020_12_tool`: 2020-12 keywords (SEP-1613) and the
 * wider vocabulary of SEP-2106 (`$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`),
 * all of which must reach `tools/list` as written.
 */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

interface JsonSchemaFixtureArgs {
  name?: string;
  address?: { street?: string; city?: string };
  contactMethod?: 'phone' | 'email';
  phone?: string;
  email?: string;
}

/** Registers the suite's tools, in the order the suite lists them. */
export function registerConformanceTools(extended: ExtendedServer): void {
  registerContentTools(extended);
  registerBehaviourTools(extended);
  registerElicitationTools(extended);
  registerSchemaAndSamplingTools(extended);
}

/** Tools that answer each kind of content: text, image, audio, an embedded resource, and all at once. */
function registerContentTools(extended: ExtendedServer): void {
  extended.registerTool('test_simple_text', { description: 'Returns a fixed text block.' }, () =>
    text('This is a simple text response for testing.'),
  );
  extended.registerTool('test_image_content', { description: 'Returns a 1x1 PNG image.' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }],
  }));
  extended.registerTool('test_audio_content', { description: 'Returns a tiny WAV clip.' }, () => ({
    content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }],
  }));
  extended.registerTool('test_embedded_resource', { description: 'Returns an embedded text resource.' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  extended.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, an image and a resource.' },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
}

/** Tools that log, fail, and report progress while they run. */
function registerBehaviourTools(extended: ExtendedServer): void {
  extended.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three log messages while it runs.' },
    async (_args, ctx) => {
      const log = (data: string) => ctx.notify('notifications/message', { level: 'info', data });
      await log('Tool execution started');
      await pause(50);
      await log('Tool processing data');
      await pause(50);
      await log('Tool execution completed');
      return text('Logging test completed');
    },
  );
  extended.registerTool('test_error_handling', { description: 'Always fails.' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  extended.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100 of 100.' },
    async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        if (ctx.progressToken !== undefined)
          await ctx.notify('notifications/progress', { progressToken: ctx.progressToken, progress, total: 100 });
        if (progress < 100) await pause(50);
      }
      return text('Progress test completed');
    },
  );
}

/** Tools that ask the user through elicitation: free fields, defaults for every primitive, every enum variant. */
function registerElicitationTools(extended: ExtendedServer): void {
  extended.registerTool(
    'test_elicitation',
    { description: 'Asks the user for a user name and e-mail.', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      if (!ctx.elicit) throw new Error('The client does not support elicitation');
      const answer = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  extended.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation with a default for every primitive type.' },
    async (_args, ctx) => {
      if (!ctx.elicit) throw new Error('The client does not support elicitation');
      const answer = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      });
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  extended.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with every enum variant.' },
    async (_args, ctx) => {
      if (!ctx.elicit) throw new Error('The client does not support elicitation');
      const answer = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: ENUM_FORM,
      });
      return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
}

/** A tool with a JSON Schema 2020-12 input, one that outlives an SSE reconnection, and one that asks the client to sample. */
function registerSchemaAndSamplingTools(extended: ExtendedServer): void {
  extended.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema<JsonSchemaFixtureArgs>(JSON_SCHEMA_2020_12_INPUT),
    },
    (args) => text(`Received ${JSON.stringify(args)}`),
  );
  extended.registerTool(
    'test_reconnection',
    { description: 'Runs briefly so a client can observe SSE reconnection.' },
    async () => {
      await pause(100);
      return text('Reconnection test completed');
    },
  );

  // Sampling is a request of the SDK's own: the pipeline hands the SDK's request context through as `sdkContext`.
  extended.registerTool(
    'test_sampling',
    { description: 'Asks the client to sample an LLM with the prompt.', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx) => {
      const sdk = ctx.sdkContext as ServerContext;
      // The 0.1.16 suite speaks the legacy era, where a server asks the client to sample with a request of its own.
      // Related to the call, so the question travels on the call's own stream (the SDK would otherwise use the
      // optional standalone stream, and drop it when the client has not opened that one yet).
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      const answer = await sdk.mcpReq.requestSampling(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
        { relatedRequestId: sdk.mcpReq.id },
      );
      const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
      return text(`LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`);
    },
  );
}
