/**
 * Checking what a peer sent against its wire schema: each schema compiled
 * once, on first use; a refusal names the JSON pointer of the first violation.
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { firstViolation, invalidInputError, metaPointer, pointerField, type CompiledValidator } from '@ext/core/kit';
import { TRANSACTIONS_ID } from './schema.js';

const compiled = new WeakMap<TSchema, CompiledValidator<TSchema>>();

/** `schema` compiled, once per process; modules pay for no schema they never check. */
export function validatorOf<S extends TSchema>(schema: S): CompiledValidator<S> {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  return validator as CompiledValidator<S>;
}

/**
 * Validates what arrived from the peer. On failure throws the kit's
 * `invalid_input` error naming the field and the JSON pointer of the first
 * violation, prefixed with where the value sat (`/params`, `/_meta/<id>`);
 * a missing or unexpected property is named itself.
 */
export function parseInput<S extends TSchema>(schema: S, value: unknown, at: string): Static<S> {
  const validator = validatorOf(schema);
  if (validator.Check(value)) return value;
  const site = firstViolation(validator.Errors(value));
  const pointer = `${at}${site.pointer}`;
  const fault = { pointer, field: pointerField(pointer, 'params'), message: `${pointer || '/'} ${site.message}` };
  throw invalidInputError(fault, 'Fix the named field and send the request again.');
}

/** The JSON pointer of this extension's `_meta` entry. */
export const META_POINTER = metaPointer(TRANSACTIONS_ID);
