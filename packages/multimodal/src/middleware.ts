/** The `multimodal` stage: finds a call's binary inputs and refuses the call before the tool runs when they do not pass. */
import { ExtensionError, type ToolMiddleware } from '@ext/core';
import { referencesFor } from '@ext/data-references/server';
import { isLocal, recordInputs, referenceNotFound } from './inputs.js';
import { checkInputs, findBinaryInputs, toolDeclaration, type BinaryInput } from './logic.js';
import type { ServerConfig } from './options.js';
import { MULTIMODAL_ID, type MultimodalToolMeta } from './schema.js';

/**
 * The stage's middleware. `declarations` holds each registered tool's
 * declaration (a tool registered without `toolMeta` is read on the call).
 */
export function multimodalMiddleware(
  config: ServerConfig,
  declarations: ReadonlyMap<string, MultimodalToolMeta | undefined>,
): ToolMiddleware {
  const { maxInputSizeBytes: defaultMax, transports } = config;
  return async (call, ctx, next) => {
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
      if (references === undefined || !isLocal(input, references) || input.reference === undefined) {
        inputs.push(input);
        continue;
      }
      // A reference to this server's own data: trust its records, not the size the client wrote.
      const local = await references.lookup(input.reference.ref_id);
      if (local === undefined) throw referenceNotFound(input, references);
      inputs.push({ ...input, sizeBytes: local.sizeBytes, mimeType: local.reference.mime_type });
    }
    const refusal = checkInputs(inputs, declaration, defaultMax);
    if (refusal !== undefined) throw refusal;
    recordInputs(ctx, inputs);
    return next();
  };
}
