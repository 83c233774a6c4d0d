/** Checking manifest payloads at the boundary: each value, or the JSON Pointer and message of its first violation. Pure. */
import { firstViolation, isRecord, lazyValidator, type CompiledValidator } from '@ext/core/kit';
import type { Static, TSchema } from 'typebox';
import {
  ManifestGetParamsSchema,
  ManifestGetResultSchema,
  ServiceManifestSchema,
  type ManifestGetParams,
  type ManifestGetResult,
  type ManifestToolMeta,
  type ServiceManifest,
} from './schema.js';

/** Parsing outcome at a boundary: the value, or the JSON Pointer and message of the first violation. */
export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly pointer: string; readonly message: string };

// Compiled on first use: keeps import free of work.
const manifestValidator = lazyValidator(ServiceManifestSchema);
const getParamsValidator = lazyValidator(ManifestGetParamsSchema);
const getResultValidator = lazyValidator(ManifestGetResultSchema);

// A missing member is reported at its parent: the pointer names the member itself.
function check<S extends TSchema>(validator: () => CompiledValidator<S>, value: unknown): Parsed<Static<S>> {
  const compiled = validator();
  if (compiled.Check(value)) return { ok: true, value };
  const { pointer, message } = firstViolation(compiled.Errors(value));
  return { ok: false, pointer, message };
}

/** The author's `Tool._meta[MANIFEST_ID]`, checked: the field that is wrong, or the entry. */
export function parseManifestToolMeta(value: unknown): Parsed<ManifestToolMeta | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (!isRecord(value)) return { ok: false, pointer: '', message: 'must be an object' };
  if (value.supports_pagination !== undefined && typeof value.supports_pagination !== 'boolean') {
    return { ok: false, pointer: '/supports_pagination', message: 'must be a boolean' };
  }
  return {
    ok: true,
    value: value.supports_pagination === undefined ? {} : { supports_pagination: value.supports_pagination },
  };
}

/** Validates a service manifest (this package's schema, which the seed schema agrees with). Never throws. */
export function parseServiceManifest(value: unknown): Parsed<ServiceManifest> {
  return check(manifestValidator, value);
}

/** Validates the params of `<id>/get` (absent params are `{}`). Never throws. */
export function parseGetParams(value: unknown): Parsed<ManifestGetParams> {
  return check(getParamsValidator, value ?? {});
}

/** Validates a `<id>/get` answer, including that a manifest comes unless `not_modified`. Never throws. */
export function parseGetResult(value: unknown): Parsed<ManifestGetResult> {
  const parsed = check(getResultValidator, value);
  if (!parsed.ok) return parsed;
  if (!parsed.value.not_modified && parsed.value.manifest === undefined) {
    return { ok: false, pointer: '/manifest', message: 'must be present unless not_modified is true' };
  }
  return parsed;
}
