/**
 * Renamed TypeScript names: an old spelling keeps working until the next
 * major (VERSIONING.md section 4) and warns the first time it is used.
 */

/** Old spelling -> new spelling, e.g. `{ risk_level: 'riskLevel' }`. */
export type Renames = Readonly<Record<string, string>>;

// Per process, not per copy of this module: a duplicate install warns no more than one copy would.
const WARNED = Symbol.for('io.github.mcp-ext/core/deprecations-warned');

function warnedSet(): Set<string> {
  const holder = globalThis as { [WARNED]?: Set<string> };
  holder[WARNED] ??= new Set<string>();
  return holder[WARNED];
}

/**
 * Warns, once per process for each `where` and `old`, that `old` is
 * deprecated in favour of `replacement`: a Node.js `DeprecationWarning`
 * with code `EXT_DEPRECATED_NAME` (so `--no-deprecation` silences it).
 */
export function warnDeprecated(where: string, old: string, replacement: string): void {
  const warned = warnedSet();
  const key = `${where}\u0000${old}`;
  if (warned.has(key)) return;
  warned.add(key);
  const message = `${where}: "${old}" is deprecated and goes in the next major; use "${replacement}"`;
  const emit = (globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }).process
    ?.emitWarning;
  if (typeof emit === 'function') emit(message, { type: 'DeprecationWarning', code: 'EXT_DEPRECATED_NAME' });
  else console.warn(`DeprecationWarning: ${message}`);
}

/**
 * `value` with each old key that is present moved to its new name (warning
 * once per key), as a copy: `value` itself is never changed, and is
 * returned as is when it holds no old key or is not an object. When both
 * spellings are given the new one wins.
 */
export function renamedKeys<T>(where: string, value: T, renames: Renames): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  // Enumerable only: a getter `deprecatedAliases` added (a value handed back as it was given out) is no input.
  const given = Object.keys(renames).filter((old) => Object.prototype.propertyIsEnumerable.call(source, old));
  if (given.length === 0) return value;
  const copy = Object.fromEntries(Object.entries(source).filter(([key]) => !given.includes(key)));
  for (const old of given) {
    const replacement = renames[old] ?? old;
    warnDeprecated(where, old, replacement);
    if (copy[replacement] === undefined) copy[replacement] = source[old];
  }
  return copy as T;
}

/**
 * Gives `target` a read-only, non-enumerable property under each old name
 * that returns the value under the new name and warns once. Non-enumerable,
 * so spreading, `JSON.stringify` and key listings show the new names only.
 */
export function deprecatedAliases<T extends object>(where: string, target: T, renames: Renames): T {
  for (const [old, replacement] of Object.entries(renames)) {
    Object.defineProperty(target, old, {
      configurable: true,
      enumerable: false,
      get() {
        warnDeprecated(where, old, replacement);
        return (target as Record<string, unknown>)[replacement];
      },
    });
  }
  return target;
}
