/** Reading what a client sent: a request's `_meta` entry, checked, or the `invalid_input` error that names the field. */
import type { Static, TSchema } from 'typebox';
import { ExtensionError } from '../contract/errors.js';
import { firstViolation, metaPointer, pointerField } from './pointer.js';
import { isRecord } from './records.js';
import type { CompiledValidator } from './validators.js';

/** What was wrong with an input, and where (`pointer` is relative to the request `params`). */
export interface InputFault {
  readonly pointer: string;
  /** The field a person would look for (the last property named by `pointer`). */
  readonly field: string;
  readonly message: string;
}

/** A value read from a client, or the fault that kept it from being read. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | ({ readonly ok: false } & InputFault);

/**
 * The `invalid_input` error for `fault`, as every extension sends it: the
 * message, `details.field` and `details.pointer`, and what to do instead.
 * Not user-actionable by default (a client sent it, not a person).
 */
export function invalidInputError(
  fault: InputFault,
  suggestion: string,
  options: { readonly code?: string | undefined; readonly userActionable?: boolean | undefined } = {},
): ExtensionError {
  return new ExtensionError('invalid_input', options.code ?? 'INVALID_INPUT', fault.message, {
    userActionable: options.userActionable ?? false,
    suggestion,
    details: { field: fault.field, pointer: fault.pointer },
  });
}

/** How {@link readMetaEntry} says what is wrong: the entry's id, the pointer inside it, and the violation. */
export type MetaFaultMessage = (fault: {
  readonly id: string;
  readonly pointer: string;
  readonly message: string;
}) => string;

const defaultMessage: MetaFaultMessage = ({ id, pointer, message }) =>
  `params._meta["${id}"]${pointer === '' ? '' : ` at ${pointer}`} ${message}`;

/**
 * Reads `params._meta[id]`: `undefined` when the client sent no entry, the
 * entry typed by `validator` when it conforms, else the fault with the
 * pointer of the first violation (e.g. `/_meta/<id>/key`). Never throws.
 */
export function readMetaEntry<S extends TSchema>(
  params: unknown,
  id: string,
  validator: () => CompiledValidator<S>,
  message: MetaFaultMessage = defaultMessage,
): Parsed<Static<S> | undefined> {
  const meta = isRecord(params) ? params._meta : undefined;
  const entry = isRecord(meta) ? meta[id] : undefined;
  if (entry === undefined) return { ok: true, value: undefined };
  const check = validator();
  if (check.Check(entry)) return { ok: true, value: entry };
  const site = firstViolation(check.Errors(entry));
  return metaFault(id, site.pointer, message({ id, pointer: site.pointer, message: site.message }));
}

/**
 * The fault of a `params._meta[id]` entry, for a reader that checks it by
 * hand: `at` is the pointer inside the entry (`''` for the entry itself,
 * `/key` for one of its fields); the field named is the last property `at`
 * names, or `id` for the entry itself. A failed {@link Parsed}, so a reader
 * returns it as it is and {@link invalidInputError} turns it into the error.
 */
export function metaFault(id: string, at: string, message: string): { readonly ok: false } & InputFault {
  return { ok: false, pointer: `${metaPointer(id)}${at}`, field: pointerField(at, id), message };
}
