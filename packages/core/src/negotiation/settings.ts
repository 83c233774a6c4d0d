/** The settings each side advertises for an extension: their `<major>.<minor>` version, and reading the peer's against a schema. */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Logger } from '../telemetry/logger.js';

/** `"<major>.<minor>"`, the version every settings object carries. */
export const SETTINGS_VERSION_PATTERN = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;

export interface SettingsVersion {
  readonly major: number;
  readonly minor: number;
}

/** Parses `"1.0"`; returns `undefined` for anything else. Never throws. */
export function parseSettingsVersion(input: unknown): SettingsVersion | undefined {
  if (typeof input !== 'string') return undefined;
  const match = SETTINGS_VERSION_PATTERN.exec(input);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** How one side reads the settings the other side advertised for an extension. */
export interface SettingsSpec {
  /** TypeBox schema of the peer's settings (unknown fields must stay allowed). */
  readonly schema?: TSchema;
  /** Wire majors this side understands. */
  readonly majors: readonly number[];
}

export type SettingsResult<S> =
  | { readonly ok: true; readonly settings: S; readonly version: SettingsVersion }
  | { readonly ok: false; readonly reason: string; readonly pointer: string };

const compiled = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function validatorFor(schema: TSchema): ReturnType<typeof Compile> {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

/**
 * Validates settings received from a peer. An empty object (SEP-2133: "no
 * settings") is read as the lowest major this side speaks. Invalid settings
 * or an unknown major are reported, never thrown: the caller treats the
 * extension as not negotiated. Unknown fields are kept and ignored.
 */
export function parseSettings<S = Record<string, unknown>>(raw: unknown, spec: SettingsSpec): SettingsResult<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, reason: 'settings must be a JSON object', pointer: '' };
  }
  const record = raw as Record<string, unknown>;
  const lowest = Math.min(...spec.majors);
  let version: SettingsVersion;
  if (record.version === undefined && Object.keys(record).length === 0) {
    version = { major: lowest, minor: 0 };
  } else {
    const parsed = parseSettingsVersion(record.version);
    if (!parsed) {
      return { ok: false, reason: 'settings "version" must be a string "<major>.<minor>"', pointer: '/version' };
    }
    version = parsed;
  }
  if (!spec.majors.includes(version.major)) {
    return {
      ok: false,
      reason: `settings major ${version.major} is not supported (this side speaks ${spec.majors.join(', ')})`,
      pointer: '/version',
    };
  }
  if (spec.schema) {
    const validator = validatorFor(spec.schema);
    if (!validator.Check(record)) {
      const first = validator.Errors(record)[0];
      const pointer = first?.instancePath ?? '';
      return { ok: false, reason: `settings ${pointer || '/'} ${first?.message ?? 'is invalid'}`, pointer };
    }
  }
  return { ok: true, settings: record as S, version };
}

/** {@link parseSettings}, reporting a failure through `logger` and returning `undefined`. */
export function readSettings(
  id: string,
  raw: unknown,
  spec: SettingsSpec,
  logger: Logger,
): Record<string, unknown> | undefined {
  const result = parseSettings(raw, spec);
  if (result.ok) return result.settings;
  logger.warn(`extension ${id} not negotiated: ${result.reason}`, { id, pointer: result.pointer });
  return undefined;
}
