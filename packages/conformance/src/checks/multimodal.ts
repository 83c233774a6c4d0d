/** The multimodal suite: the checks of a server that advertises `io.github.mcp-ext/multimodal`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { detailsOf, expectToolRefusal, withErrors } from './methods.js';

export const MULTIMODAL_ID = 'io.github.mcp-ext/multimodal';
const TOKEN = "[A-Za-z0-9!#$&^_.+'-]+";
const MEDIA_RANGE = new RegExp(`^(\\*/\\*|${TOKEN}/(\\*|${TOKEN}))$`);
/** Larger inputs would exceed what HTTP transports take by default (4 MiB with base64's overhead). */
const MAX_TESTED_LIMIT = 3 * 1024 * 1024;

function isMediaRanges(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string' && MEDIA_RANGE.test(entry));
}

/** Whether `range` covers `type` (case and parameters ignored). */
function covers(range: string, type: string): boolean {
  const [rangeType, rangeSub] = range.toLowerCase().split('/');
  const [typeType, typeSub] = type.toLowerCase().split('/');
  return (rangeType === '*' || rangeType === typeType) && (rangeSub === '*' || rangeSub === typeSub);
}

/** A tool with media declared, the property where a binary input goes, and sample values for the others. */
interface MediaTarget {
  readonly tool: ListedTool;
  readonly declaration: Record<string, unknown>;
  readonly property: string;
  readonly base: Record<string, unknown>;
  readonly image: boolean;
  readonly blob: boolean;
}

function mediaTargets(ctx: CheckContext): MediaTarget[] {
  const targets: MediaTarget[] = [];
  for (const tool of ctx.server.tools) {
    const declaration = tool._meta?.[ctx.id ?? MULTIMODAL_ID];
    if (!isRecord(declaration)) continue;
    const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    for (const [property, schema] of Object.entries(properties)) {
      const text = JSON.stringify(schema);
      const image = text.includes('"image"');
      const blob = text.includes('"blob"');
      if (!image && !blob) continue;
      const required = Array.isArray(tool.inputSchema.required)
        ? tool.inputSchema.required.filter((name) => name !== property)
        : [];
      const { [property]: _binary, ...others } = properties;
      const base = sampleArguments({ ...tool, inputSchema: { ...tool.inputSchema, properties: others, required } });
      if (base !== undefined) targets.push({ tool, declaration, property, base, image, blob });
      break;
    }
  }
  return targets;
}

/** A binary input of `mimeType` whose data is `data`: image content when the schema takes it, else an embedded blob. */
function binaryValue(target: MediaTarget, mimeType: string, data: string): Record<string, unknown> | undefined {
  if (target.image && mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (target.blob) return { type: 'resource', resource: { uri: 'conformance:input', mimeType, blob: data } };
  return undefined;
}

/** A media type the tool accepts, in a form the target's schema can carry. */
function acceptedType(target: MediaTarget): string | undefined {
  const types = isMediaRanges(target.declaration.input_types) ? target.declaration.input_types : [];
  const concrete = (range: string): string[] => {
    if (range === '*/*') return ['image/png', 'application/octet-stream'];
    if (range.endsWith('/*')) return [range.replace('/*', range.startsWith('image/') ? '/png' : '/octet-stream')];
    return [range];
  };
  const candidates = types.length === 0 ? concrete('*/*') : types.flatMap(concrete);
  return candidates.find((type) => binaryValue(target, type, '') !== undefined);
}

function base64Of(size: number): string {
  return Buffer.alloc(size, 7).toString('base64');
}

interface Oversized {
  readonly target: MediaTarget;
  readonly args: Record<string, unknown>;
  readonly limit: number;
}

/** Arguments whose one binary input is a byte over the tool's limit, or the check is skipped. */
function oversized(ctx: CheckContext): Oversized {
  for (const target of mediaTargets(ctx)) {
    const declared = target.declaration.max_input_size_bytes ?? ctx.settings.max_input_size_bytes;
    if (typeof declared !== 'number' || declared > MAX_TESTED_LIMIT) continue;
    const type = acceptedType(target);
    const value = type === undefined ? undefined : binaryValue(target, type, base64Of(declared + 1));
    if (value !== undefined) return { target, args: { ...target.base, [target.property]: value }, limit: declared };
  }
  return ctx.skip(
    `no tool declares media with a max_input_size_bytes up to ${String(MAX_TESTED_LIMIT)} and arguments the kit can build`,
  );
}

/** `@ext/multimodal` (SPEC: packages/multimodal/SPEC.md). Only calls a conforming server refuses before the tool runs. */
export const multimodalSuite: ExtensionSuite = {
  extension: 'multimodal',
  ids: [MULTIMODAL_ID],
  spec: 'packages/multimodal/SPEC.md',
  checks: [
    {
      id: 'multimodal/settings',
      requirement: 'MM-1',
      level: 'MUST',
      title: 'settings list binary_transport with "base64", and media ranges and an integer limit when present',
      run(ctx) {
        const { binary_transport: transports, mimeTypes, max_input_size_bytes: max } = ctx.settings;
        ensure(
          Array.isArray(transports) &&
            transports.includes('base64') &&
            transports.every((entry) => typeof entry === 'string'),
          `binary_transport is ${describe(transports)}`,
        );
        ensure(mimeTypes === undefined || isMediaRanges(mimeTypes), `mimeTypes is ${describe(mimeTypes)}`);
        ensure(
          max === undefined || (Number.isSafeInteger(max) && (max as number) >= 0),
          `max_input_size_bytes is ${describe(max)}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'multimodal/tool-meta',
      requirement: 'MM-2',
      level: 'MUST',
      title:
        'a declaring tool lists the completed { input_types, output_types, accepts_unlisted_types, binary_transport, max_input_size_bytes? }',
      run(ctx) {
        const problems: string[] = [];
        const transports = JSON.stringify(ctx.settings.binary_transport);
        for (const tool of ctx.server.tools) {
          const meta = tool._meta?.[ctx.id ?? MULTIMODAL_ID];
          if (meta === undefined) continue;
          if (!isRecord(meta)) {
            problems.push(`${tool.name}: ${describe(meta)}`);
            continue;
          }
          for (const field of ['input_types', 'output_types'])
            if (!isMediaRanges(meta[field])) problems.push(`${tool.name}: ${field} ${describe(meta[field])}`);
          if (typeof meta.accepts_unlisted_types !== 'boolean')
            problems.push(`${tool.name}: accepts_unlisted_types ${describe(meta.accepts_unlisted_types)}`);
          if (JSON.stringify(meta.binary_transport) !== transports)
            problems.push(
              `${tool.name}: binary_transport ${describe(meta.binary_transport)}, the server's ${transports}`,
            );
          const max = meta.max_input_size_bytes;
          if (max !== undefined && !(Number.isSafeInteger(max) && (max as number) >= 0))
            problems.push(`${tool.name}: max_input_size_bytes ${describe(max)}`);
        }
        ensure(problems.length === 0, problems.join('; '));
        return Promise.resolve();
      },
    },
    {
      id: 'multimodal/too-large',
      requirement: 'MM-5',
      level: 'MUST',
      title:
        'binary inputs over the limit are refused before the tool runs: invalid_input PAYLOAD_TOO_LARGE with sizes and pointer',
      async run(ctx) {
        const { target, args, limit } = oversized(ctx);
        const result = await (await ctx.connect(withErrors(ctx, MULTIMODAL_ID))).callTool(target.tool.name, args);
        const structured = expectToolRefusal(ctx, result, {
          category: 'invalid_input',
          code: 'PAYLOAD_TOO_LARGE',
          what: `${target.tool.name} with ${String(limit + 1)} bytes`,
        });
        if (structured === undefined) return;
        const details = detailsOf(structured);
        ensure(
          details.max_size_bytes === limit && details.size_bytes === limit + 1,
          `details are ${describe(details)}`,
        );
        ensure(details.pointer === `/arguments/${target.property}`, `details.pointer is ${describe(details.pointer)}`);
      },
    },
    {
      id: 'multimodal/unsupported-type',
      requirement: 'MM-6',
      level: 'MUST',
      title:
        'an input of an unlisted media type is refused before the tool runs: invalid_input UNSUPPORTED_MEDIA_TYPE naming it',
      async run(ctx) {
        for (const target of mediaTargets(ctx)) {
          const types = target.declaration.input_types;
          if (target.declaration.accepts_unlisted_types !== false || !isMediaRanges(types) || types.length === 0)
            continue;
          const unlisted = ['image/x-conformance-unlisted', 'application/x-conformance-unlisted'].find(
            (type) => !types.some((range) => covers(range, type)) && binaryValue(target, type, '') !== undefined,
          );
          if (unlisted === undefined) continue;
          const value = binaryValue(target, unlisted, base64Of(16));
          const result = await (
            await ctx.connect(withErrors(ctx, MULTIMODAL_ID))
          ).callTool(target.tool.name, { ...target.base, [target.property]: value });
          const structured = expectToolRefusal(ctx, result, {
            category: 'invalid_input',
            code: 'UNSUPPORTED_MEDIA_TYPE',
            what: `${target.tool.name} with ${unlisted}`,
          });
          const details = detailsOf(structured);
          if (structured !== undefined)
            ensure(
              details.mime_type === unlisted && Array.isArray(details.accepted_types),
              `details are ${describe(details)}`,
            );
          return;
        }
        return ctx.skip('no tool lists input_types without accepting unlisted ones');
      },
    },
    {
      id: 'multimodal/invalid-base64',
      requirement: 'MM-7',
      level: 'MUST',
      title:
        'binary data that is not base64 is refused before the tool runs: invalid_input INVALID_INPUT with a pointer',
      async run(ctx) {
        for (const target of mediaTargets(ctx)) {
          const type = acceptedType(target);
          const value = type === undefined ? undefined : binaryValue(target, type, '!!not base64!!');
          if (value === undefined) continue;
          const result = await (
            await ctx.connect(withErrors(ctx, MULTIMODAL_ID))
          ).callTool(target.tool.name, { ...target.base, [target.property]: value });
          const structured = expectToolRefusal(ctx, result, {
            category: 'invalid_input',
            code: 'INVALID_INPUT',
            what: `${target.tool.name} with data that is not base64`,
          });
          if (structured !== undefined)
            ensure(typeof detailsOf(structured).pointer === 'string', `details are ${describe(structured.details)}`);
          return;
        }
        return ctx.skip('no tool declares media with arguments the kit can build');
      },
    },
    {
      id: 'multimodal/without-negotiation',
      requirement: 'MM-8',
      level: 'MUST',
      title: 'the checks apply to a client that did not negotiate the extension too',
      async run(ctx) {
        const { target, args, limit } = oversized(ctx);
        const result = await (await ctx.connect({})).callTool(target.tool.name, args);
        ensure(
          result.isError === true,
          `${target.tool.name} ran with ${String(limit + 1)} bytes (limit ${String(limit)}) for a client without the extension`,
        );
      },
    },
  ],
};
