import { Readable } from 'node:stream';
import {
  ConfigurationError,
  ExtensionError,
  type CallContext,
  type ServerExtension,
  type ToolMiddleware,
} from '@ext/core';
import { DATA_REFERENCES_PACKAGE } from '@ext/data-references';
import { referencesFor, type CallReferences } from '@ext/data-references/server';
import * as z from 'zod';
import {
  checkInputs,
  detectInput,
  findBinaryInputs,
  isMediaRange,
  locateInput,
  toolDeclaration,
  type BinaryInput,
} from './logic.js';
import {
  MULTIMODAL_ID,
  MULTIMODAL_PACKAGE,
  MULTIMODAL_WIRE_VERSION,
  MultimodalClientSettingsSchema,
  type BinaryTransport,
  type MultimodalServerSettings,
  type MultimodalToolMeta,
} from './schema.js';

export type { BinaryInput, BinaryInputKind } from './logic.js';

export interface MultimodalServerOptions {
  /**
   * Accept binary inputs uploaded out of band (raw bytes to the
   * data-references upload endpoint, then passed as a reference). Needs
   * `dataReferencesServer({ origin })` with uploads enabled. Default `false`.
   */
  readonly outOfBand?: boolean | undefined;
  /** Limit on the binary inputs of tools that declare none, in bytes. Default: none. */
  readonly maxInputSizeBytes?: number | undefined;
  /** Media types the server's tools accept overall, advertised as `mimeTypes`. Default: not advertised. */
  readonly mimeTypes?: readonly string[] | undefined;
}

// Symbol.for, so duplicate copies of this package agree on the slot.
const INPUTS = Symbol.for('io.github.mcp-ext/multimodal/inputs');

/** The binary inputs of the current call, as the multimodal stage checked them (`[]` without the server half). */
export function inputsOf(ctx: Pick<CallContext, 'locals'>): readonly BinaryInput[] {
  return (ctx.locals.get(INPUTS) as readonly BinaryInput[] | undefined) ?? [];
}

/** Whether a reference was produced by this server's own origin (an upload, or one of its results). */
function isLocal(input: BinaryInput, references: CallReferences | undefined): boolean {
  return (
    input.reference !== undefined &&
    references?.origin !== undefined &&
    input.reference.origin_server === references.origin.serverName
  );
}

function referenceNotFound(input: BinaryInput): ExtensionError {
  return new ExtensionError(
    'invalid_input',
    'REFERENCE_NOT_FOUND',
    "The referenced input is not held by this server for this caller (unknown, expired or another caller's)",
    {
      suggestion: 'Upload the data again and pass the new reference.',
      details: { pointer: input.pointer, ref_id: input.reference?.ref_id },
    },
  );
}

/**
 * A binary argument's bytes, whatever way it came: base64 content, a
 * reference uploaded to this server (read from its origin), or another
 * server's reference (imported first, under the data-references import
 * policy). Throws an `invalid_input` `ExtensionError` when the value is not
 * a binary input or cannot be read here.
 *
 * @example
 * ```ts
 * server.registerTool('describe_image', { inputSchema: z.object({ image: binaryInputSchema() }) }, async ({ image }, ctx) => {
 *   const bytes = await readAll(await openInput(ctx, image));
 *   ...
 * });
 * ```
 */
export async function openInput(ctx: Pick<CallContext, 'locals'>, value: unknown): Promise<Readable> {
  // Only the value is given: a fault inside it is named by its field, and a refusal by where the multimodal stage found it.
  const detected = detectInput(value, '');
  if (detected === undefined) {
    throw new ExtensionError(
      'invalid_input',
      'INVALID_INPUT',
      'The value is not a binary input (image, audio, blob or data reference)',
    );
  }
  if ('invalid' in detected) {
    throw new ExtensionError('invalid_input', 'INVALID_INPUT', `Invalid binary input: ${detected.invalid}`, {
      details: { field: detected.field },
    });
  }
  const input = locateInput(detected, inputsOf(ctx), '/arguments');
  if (input.data !== undefined) return Readable.from([Buffer.from(input.data, 'base64')]);
  const references = referencesFor(ctx);
  const reference = input.reference;
  if (reference === undefined || references === undefined) {
    throw new ExtensionError('invalid_input', 'REFERENCE_NOT_READABLE', 'This server cannot read data references', {
      details: { pointer: input.pointer },
    });
  }
  if (isLocal(input, references)) {
    if ((await references.lookup(reference.ref_id)) === undefined) throw referenceNotFound(input);
    return references.open(reference.ref_id);
  }
  // Another server's reference: read only through an import, whose refusal (e.g. ORIGIN_NOT_ALLOWED on a server that imports nothing) is the answer.
  const imported = await references.importReference(reference);
  if (imported.status !== 'imported' || imported.reference === undefined) {
    const error = imported.error;
    throw new ExtensionError(
      error?.category ?? 'permanent',
      error?.code ?? 'REFERENCE_NOT_READABLE',
      error?.message ?? 'The referenced input could not be imported',
      {
        suggestion: error?.suggestion,
        details: { pointer: input.pointer, ref_id: reference.ref_id },
      },
    );
  }
  return references.open(imported.reference.ref_id);
}

const REFERENCE_FIELDS = {
  ref_id: z.string().min(1),
  origin_server: z.string().min(1),
  mime_type: z.string().min(1),
  size_bytes: z.number().int().min(0).optional(),
  expires_at: z.string().optional(),
  access_url: z.string().optional(),
  checksum: z.object({ algorithm: z.enum(['sha256', 'md5']), value: z.string() }).optional(),
};

/**
 * A zod schema for one binary argument in any form the extension accepts:
 * MCP image or audio content (`{ type, data, mimeType }`), an embedded blob
 * resource, or a data reference (out of band).
 */
export function binaryInputSchema(
  description = 'Binary input: image or audio content, an embedded blob, or a data reference',
) {
  return z
    .union([
      z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
      z.object({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
      z.object({
        type: z.literal('resource'),
        resource: z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
      }),
      z.object(REFERENCE_FIELDS),
    ])
    .describe(description);
}

/**
 * The server half of multimodal signatures: lists each tool's declared
 * `input_types`, `output_types` and `max_input_size_bytes` in
 * `Tool._meta[<id>]`, and at the `multimodal` stage (before confirmation
 * and anything with effects) refuses a call whose binary inputs are too
 * large (`PAYLOAD_TOO_LARGE`) or of a type the tool does not take
 * (`UNSUPPORTED_MEDIA_TYPE`, `invalid_input`). With `outOfBand`, clients
 * may upload bytes to the data-references endpoint and pass a reference;
 * its real size and type are read from this server's own records.
 */
export function multimodalServer(options: MultimodalServerOptions = {}): ServerExtension {
  const where = 'multimodalServer';
  const outOfBand = options.outOfBand ?? false;
  if (typeof outOfBand !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', `${where}: outOfBand must be a boolean`);
  const defaultMax = options.maxInputSizeBytes;
  if (defaultMax !== undefined && (!Number.isSafeInteger(defaultMax) || defaultMax < 0)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: maxInputSizeBytes must be a non-negative integer, got ${String(defaultMax)}`,
    );
  }
  for (const [index, type] of (options.mimeTypes ?? []).entries()) {
    if (!isMediaRange(type))
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: mimeTypes[${String(index)}] must be a media type such as "image/png" or "image/*"`,
      );
  }
  const transports: BinaryTransport[] = outOfBand ? ['base64', 'data-reference'] : ['base64'];
  const declarations = new Map<string, MultimodalToolMeta | undefined>();

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const declaration = declarations.has(ctx.tool.name)
      ? declarations.get(ctx.tool.name)
      : toolDeclaration(ctx.tool, MULTIMODAL_ID, transports);
    if (declaration === undefined && defaultMax === undefined) return next();
    const found = findBinaryInputs(call.arguments);
    if (!found.ok) {
      throw new ExtensionError('invalid_input', 'INVALID_INPUT', `Invalid binary input: ${found.message}`, {
        details: { pointer: found.pointer, field: found.field },
      });
    }
    const references = referencesFor(ctx);
    const inputs: BinaryInput[] = [];
    for (const input of found.inputs) {
      if (!isLocal(input, references) || input.reference === undefined) {
        inputs.push(input);
        continue;
      }
      // A reference to this server's own data: trust its records, not the size the client wrote.
      const local = await references?.lookup(input.reference.ref_id);
      if (local === undefined) throw referenceNotFound(input);
      inputs.push({ ...input, sizeBytes: local.sizeBytes, mimeType: local.reference.mime_type });
    }
    const refusal = checkInputs(inputs, declaration, defaultMax);
    if (refusal !== undefined) throw refusal;
    ctx.locals.set(INPUTS, inputs);
    return next();
  };

  const settings: Omit<MultimodalServerSettings, 'version'> = { binary_transport: transports };
  if (options.mimeTypes !== undefined) settings.mimeTypes = [...options.mimeTypes];
  if (defaultMax !== undefined) settings.max_input_size_bytes = defaultMax;

  return {
    side: 'server',
    name: MULTIMODAL_PACKAGE,
    ids: [MULTIMODAL_ID],
    settings: { version: MULTIMODAL_WIRE_VERSION, ...settings },
    peerSettings: MultimodalClientSettingsSchema,
    requires: outOfBand ? [DATA_REFERENCES_PACKAGE] : undefined,
    stage: 'multimodal',
    middleware,
    toolMeta(tool) {
      // Validates at registration, so a malformed declaration fails at startup, naming the tool and the field.
      const declaration = toolDeclaration(tool, MULTIMODAL_ID, transports);
      declarations.set(tool.name, declaration);
      if (declaration === undefined) return undefined;
      return { ...declaration };
    },
  };
}
