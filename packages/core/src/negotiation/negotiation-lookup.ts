/**
 * Reading a negotiation table the way `ctx.negotiated(id)` and
 * `client.negotiated(id)` do: by the extension's identifier, any generation
 * of it (CORE-36), or, deprecated, by its npm name, which says so once per
 * logger.
 */
import type { NegotiationTable } from '../contract/client-extension.js';
import { parseExtensionId } from './identifiers.js';
import type { Logger } from '../telemetry/logger.js';
import type { NegotiatedExtension } from '../contract/types.js';

/** Which composed half each identifier, and each family of generations, belongs to; each half's first identifier. */
interface Directory {
  readonly nameOf: ReadonlyMap<string, string>;
  readonly familyOf: ReadonlyMap<string, string>;
  readonly idOf: ReadonlyMap<string, string>;
}

const directories = new WeakMap<NegotiationTable, Directory>();
const warned = new WeakMap<Logger, Set<string>>();

/** `io.github.mcp-ext/errors` for `errors`, `errors-v2`, ...: the generations of one extension. */
function familyOf(id: string): string | undefined {
  const parsed = parseExtensionId(id);
  return parsed.ok ? `${parsed.value.prefix}/${parsed.value.baseName}` : undefined;
}

/** A directory of the halves a table is negotiated for: every identifier a half serves names it, and so does its family. */
export function directoryOf(halves: readonly { readonly name: string; readonly ids: readonly string[] }[]): Directory {
  const nameOf = new Map<string, string>();
  const families = new Map<string, string>();
  const idOf = new Map<string, string>();
  for (const half of halves) {
    for (const id of half.ids) {
      nameOf.set(id, half.name);
      const family = familyOf(id);
      if (family !== undefined && !families.has(family)) families.set(family, half.name);
    }
    const first = half.ids[0];
    if (first !== undefined) idOf.set(half.name, first);
  }
  return { nameOf, familyOf: families, idOf };
}

/** Remembers which halves `table` was negotiated for, so it can be read by identifier. */
export function registerTable(table: NegotiationTable, directory: Directory): NegotiationTable {
  directories.set(table, directory);
  return table;
}

function byIdentifier(table: NegotiationTable, id: string, family: string): NegotiatedExtension | undefined {
  const directory = directories.get(table);
  if (directory !== undefined) {
    const name = directory.nameOf.get(id) ?? directory.familyOf.get(family);
    return name === undefined ? undefined : table.get(name);
  }
  // A table built by hand has no directory: the identifier agreed on is the best guess.
  for (const outcome of table.values()) if (outcome.id === id || familyOf(outcome.id) === family) return outcome;
  return undefined;
}

function warnOnce(logger: Logger, table: NegotiationTable, name: string, caller: string): void {
  let names = warned.get(logger);
  if (names === undefined) {
    names = new Set();
    warned.set(logger, names);
  }
  if (names.has(name)) return;
  names.add(name);
  const id = directories.get(table)?.idOf.get(name);
  logger.warn(
    `${caller}('${name}') is deprecated: pass the extension's identifier${id === undefined ? '' : ` ('${id}', its *_ID constant)`}; the npm name keeps working until the next major release`,
    { extension: name, ...(id === undefined ? {} : { id }) },
  );
}

/**
 * The outcome for the extension `key` names: an identifier, of any
 * generation (`.../errors` finds the half serving only `.../errors-v2`, and
 * the outcome's `id` says which was agreed), or, deprecated, its npm name,
 * warned about once per logger and name.
 */
export function lookupNegotiated(
  table: NegotiationTable,
  key: string,
  logger: Logger,
  caller: string,
): NegotiatedExtension | undefined {
  const family = familyOf(key);
  if (family !== undefined) return byIdentifier(table, key, family);
  warnOnce(logger, table, key, caller);
  return table.get(key);
}
