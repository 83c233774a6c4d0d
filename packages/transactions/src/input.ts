/**
 * Checking what a peer sent against its wire schema: each schema compiled
 * once, on first use; a refusal names the JSON pointer of the first violation.
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ExtensionError } from '@ext/core';
import { metaPointer, type CompiledValidator } from '@ext/core/kit';
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
 * Validates what arrived from the peer. On failure throws an `invalid_input`
 * error whose details name the JSON pointer of the first violation, prefixed
 * with where the value sat (`/params`, `/_meta/<id>`).
 */
export function parseInput<S extends TSchema>(schema: S, value: unknown, at: string): Static<S> {
  const validator = validatorOf(schema);
  if (validator.Check(value)) return value;
  const first = validator.Errors(value)[0];
  const pointer = `${at}${first?.instancePath ?? ''}`;
  throw new ExtensionError('invalid_input', 'INVALID_INPUT', `${pointer || '/'} ${first?.message ?? 'is invalid'}`, {
    details: { pointer },
    suggestion: 'Fix the named field and send the request again.',
    userActionable: false,
  });
}

/** The JSON pointer of this extension's `_meta` entry. */
export const META_POINTER = metaPointer(TRANSACTIONS_ID);
