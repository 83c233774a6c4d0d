/**
 * The extension halves given to a composition, checked at startup (CORE-17,
 * CORE-18): one side, unique names and identifiers, declared aliases, a
 * well-formed settings version, every dependency composed. Their order in
 * the pipeline is `stage-placement.ts`'s.
 */
import { ConfigurationError } from '../contract/errors.js';
import type { ClientExtension } from '../contract/client-extension.js';
import type { ServerExtension } from '../contract/extension.js';
import { checkOwnIdentifier, parseExtensionId } from '../negotiation/identifiers.js';
import { parseSettingsVersion, type SettingsSpec } from '../negotiation/settings.js';

/** An entry of a composition's list: a half, or what `flag && half()` gives when the flag is off. */
export type Maybe<T> = T | false | null | undefined;

/** How a half reads the settings its peer advertises: its schema, at the majors it understands. */
export function settingsSpec(half: ServerExtension | ClientExtension): SettingsSpec {
  const own = parseSettingsVersion(half.settings.version);
  if (!own) {
    throw new ConfigurationError(
      'INVALID_SETTINGS_VERSION',
      `${half.name}: settings.version must be "<major>.<minor>", got ${JSON.stringify(half.settings.version)}`,
    );
  }
  return { schema: half.peerSettings, majors: half.majors ?? [own.major] };
}

/** The reserved aliases a half declares, checked: each is in `ids` and names the same extension as one of its own identifiers. */
function declaredAliases(half: ServerExtension | ClientExtension): readonly string[] {
  const aliases = half.reservedAliases ?? [];
  const ownNames = new Set(
    half.ids.flatMap((id) => {
      const parsed = parseExtensionId(id);
      return parsed.ok && !parsed.value.reserved ? [parsed.value.name] : [];
    }),
  );
  for (const alias of aliases) {
    const parsed = parseExtensionId(alias);
    if (!half.ids.includes(alias) || !parsed.ok || !ownNames.has(parsed.value.name)) {
      throw new ConfigurationError(
        'INVALID_IDENTIFIER',
        `${half.name}: reserved alias "${alias}" must be listed in ids and name the same extension as one of its own identifiers`,
      );
    }
  }
  const stray = Object.keys(half.aliasSettings ?? {}).find((id) => !aliases.includes(id));
  if (stray !== undefined) {
    throw new ConfigurationError(
      'INVALID_IDENTIFIER',
      `${half.name}: aliasSettings names "${stray}", which is not one of its reservedAliases; its own identifiers advertise settings`,
    );
  }
  return aliases;
}

/**
 * The halves of `input` that are given (not `false`, `null` or `undefined`),
 * in order, once each is checked; throws the `ConfigurationError` of the
 * first rule broken.
 */
export function validateHalves<H extends ServerExtension | ClientExtension>(
  input: readonly Maybe<H>[],
  side: H['side'],
  allowReservedIds: readonly string[],
): H[] {
  const halves = input.filter((half): half is H => Boolean(half));
  const names = new Set<string>();
  const ids = new Map<string, string>();
  for (const half of halves) {
    if (half.side !== side) {
      throw new ConfigurationError(
        'WRONG_SIDE',
        `${half.name}: a ${half.side} half was passed where ${side} halves are composed`,
      );
    }
    if (names.has(half.name)) {
      throw new ConfigurationError('DUPLICATE_EXTENSION', `${half.name} is listed twice; compose each extension once`);
    }
    names.add(half.name);
    if (half.ids.length === 0) throw new ConfigurationError('NO_IDENTIFIER', `${half.name}: serves no identifier`);
    const allowedReserved = [...allowReservedIds, ...declaredAliases(half)];
    for (const id of half.ids) {
      const check = checkOwnIdentifier(id, allowedReserved);
      if (!check.ok) throw new ConfigurationError('INVALID_IDENTIFIER', `${half.name}: ${check.reason}`);
      const owner = ids.get(id);
      if (owner !== undefined) {
        throw new ConfigurationError('DUPLICATE_IDENTIFIER', `${id} is served by both ${owner} and ${half.name}`);
      }
      ids.set(id, half.name);
    }
    settingsSpec(half);
  }
  for (const half of halves) {
    for (const dependency of half.requires ?? []) {
      if (!names.has(dependency)) {
        throw new ConfigurationError(
          'MISSING_DEPENDENCY',
          `${half.name} requires ${dependency}: install it and add its ${side} half to the composed extensions`,
        );
      }
    }
  }
  return halves;
}
