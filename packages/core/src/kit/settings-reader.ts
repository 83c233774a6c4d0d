/** One reader per extension for the settings a peer advertised in `capabilities.extensions`. */
import type { Static, TSchema } from 'typebox';
import { parseSettings } from '../negotiation/settings.js';
import { isRecord } from './records.js';

/**
 * A function reading extension `id`'s settings from a peer's
 * `capabilities.extensions` (e.g. `client.serverExtensions()`): the
 * settings when they validate against `schema` at one of `majors`, else
 * `undefined` (not advertised, or a version this side does not speak).
 * Never throws.
 */
export function settingsReader<const S extends TSchema>(spec: {
  readonly id: string;
  readonly schema: S;
  readonly majors: readonly number[];
}): (extensions: unknown) => Static<S> | undefined {
  return (extensions) => {
    if (!isRecord(extensions)) return undefined;
    const raw = extensions[spec.id];
    if (raw === undefined) return undefined;
    const parsed = parseSettings<Static<S>>(raw, { schema: spec.schema, majors: spec.majors });
    return parsed.ok ? parsed.settings : undefined;
  };
}
