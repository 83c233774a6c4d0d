/** The wire generations of the extension (`v1`, `v2`) and which identifiers a half serves for its `identifiers` option. */
import { invalidOption } from './option-checks.js';
import { ERRORS_ID, ERRORS_V2_ID } from './schema.js';

/** A generation of the wire contract, as the `identifiers` option names it. */
export type ErrorsIdentifier = 'v1' | 'v2';

/** The SEP-2133 identifier of each generation. */
export const ERRORS_IDENTIFIERS: Readonly<Record<ErrorsIdentifier, string>> = {
  v1: ERRORS_ID,
  v2: ERRORS_V2_ID,
};

/** What either half serves unless told otherwise: v1 only, so nothing changes for existing peers. */
export const DEFAULT_ERRORS_IDENTIFIERS: readonly ErrorsIdentifier[] = ['v1'];

const GENERATIONS: readonly ErrorsIdentifier[] = ['v1', 'v2'];

function isGeneration(value: unknown): value is ErrorsIdentifier {
  return GENERATIONS.some((generation) => generation === value);
}

/**
 * The identifiers a half serves for its `identifiers` option, oldest first
 * whatever order the option lists them in (the core picks the newest one
 * both sides advertise). Throws a `ConfigurationError` naming the option.
 */
export function resolveErrorsIdentifiers(value: unknown, factory: 'errorsServer' | 'errorsClient'): readonly string[] {
  const where = `${factory}(options)`;
  if (value === undefined) return DEFAULT_ERRORS_IDENTIFIERS.map((generation) => ERRORS_IDENTIFIERS[generation]);
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidOption(`${where}: option "identifiers" must be a non-empty array of "v1" and "v2"`);
  }
  const chosen = new Set<ErrorsIdentifier>();
  for (const entry of value as unknown[]) {
    if (!isGeneration(entry)) {
      throw invalidOption(
        `${where}: option "identifiers" has ${typeof entry === 'string' ? `"${entry}"` : typeof entry}; known generations are "v1" and "v2"`,
      );
    }
    if (chosen.has(entry)) {
      throw invalidOption(`${where}: option "identifiers" lists "${entry}" twice`);
    }
    chosen.add(entry);
  }
  return GENERATIONS.filter((generation) => chosen.has(generation)).map((generation) => ERRORS_IDENTIFIERS[generation]);
}
