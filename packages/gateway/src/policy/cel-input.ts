/**
 * The caller's arguments and claims as CEL reads them: a fresh copy the
 * library cannot trip on (objects as `Map`s), within a depth and a size,
 * so nothing an expression does reaches the caller's objects. Pure.
 */

/** Deeper or larger input fails the condition rather than the process. */
const MAX_INPUT_DEPTH = 64;
const MAX_INPUT_VALUES = 100_000;

/** Input the library cannot read: too deep, too large, or not JSON. */
export class UnreadableInput extends Error {}

interface Walk {
  readonly name: string;
  left: number;
}

export function celInput(name: string, value: unknown): unknown {
  return celValue(value, 0, { name, left: MAX_INPUT_VALUES });
}

/**
 * `value` as CEL reads it, as a fresh copy (nothing an expression does can
 * reach the caller's objects). Objects become `Map`s: a plain object with a
 * key such as `constructor` trips the library's type test, a `Map` key is
 * only data. Numbers stay doubles, as JSON numbers are in CEL (`args.n * 2`
 * is an error, `args.n * 2.0` is not).
 */
function celValue(value: unknown, depth: number, walk: Walk): unknown {
  walk.left -= 1;
  if (walk.left < 0) throw new UnreadableInput(`${walk.name} holds more than ${MAX_INPUT_VALUES} values`);
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return value;
    case 'object':
      return value === null ? null : celObject(value, depth, walk);
    default:
      throw new UnreadableInput(`${walk.name} holds a ${typeof value}, which is not JSON`);
  }
}

function celObject(value: object, depth: number, walk: Walk): unknown {
  if (depth >= MAX_INPUT_DEPTH) throw new UnreadableInput(`${walk.name} nests deeper than ${MAX_INPUT_DEPTH} levels`);
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    // An empty slot is `null`, as JSON.stringify writes it.
    return Array.from(items, (item) => celValue(item ?? null, depth + 1, walk));
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new UnreadableInput(`${walk.name} holds an object that is not plain JSON`);
  }
  const map = new Map<string, unknown>();
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    // A key holding `undefined` is absent, as in JSON.
    if (item !== undefined) map.set(key, celValue(item, depth + 1, walk));
  }
  return map;
}
