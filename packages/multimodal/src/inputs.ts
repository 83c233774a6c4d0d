/** A call's binary inputs: as the multimodal stage checked them (`inputsOf`), and their bytes (`openInput`). */
import { Readable } from 'node:stream';
import { defineLocal } from '@ext/core/kit';
import { ExtensionError, type CallContext } from '@ext/core';
import { referencesFor, type CallReferences } from '@ext/data-references/server';
import { detectInput, locateInput, type BinaryInput } from './logic.js';

const INPUTS = defineLocal<readonly BinaryInput[]>('multimodal/inputs');

/** The binary inputs of the current call, as the multimodal stage checked them (`[]` without the server half). */
export function inputsOf(ctx: Pick<CallContext, 'locals'>): readonly BinaryInput[] {
  return INPUTS.get(ctx) ?? [];
}

/** Keeps the checked inputs on the call, for {@link inputsOf} and {@link openInput}. */
export function recordInputs(ctx: Pick<CallContext, 'locals'>, inputs: readonly BinaryInput[]): void {
  INPUTS.set(ctx, inputs);
}

/** Whether a reference was produced by this server's own origin (an upload, or one of its results). */
export function isLocal(input: BinaryInput, references: CallReferences | undefined): boolean {
  return (
    input.reference !== undefined &&
    references?.origin !== undefined &&
    input.reference.origin_server === references.origin.serverName
  );
}

/**
 * A reference to this server's data that the caller does not hold (unknown,
 * expired or another caller's). Uploading again is suggested only to a
 * caller that can upload here (MM-12).
 */
export function referenceNotFound(input: BinaryInput, references: CallReferences): ExtensionError {
  const canUpload = references.negotiated && references.origin?.uploads !== undefined;
  return new ExtensionError(
    'invalid_input',
    'REFERENCE_NOT_FOUND',
    "The referenced input is not held by this server for this caller (unknown, expired or another caller's)",
    {
      suggestion: canUpload
        ? 'Upload the data again and pass the new reference.'
        : 'Send the data inline (as image, audio or embedded blob content) instead.',
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
    if ((await references.lookup(reference.ref_id)) === undefined) throw referenceNotFound(input, references);
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
