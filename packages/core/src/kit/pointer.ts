/** JSON Pointers (RFC 6901) into request params, and the most useful schema violation as one. */

/** One escaped pointer segment: `~` as `~0`, `/` as `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The pointer made of `segments`, each escaped (`['_meta', 'a/b']` gives `/_meta/a~1b`). */
export function jsonPointer(...segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${escapePointerSegment(String(segment))}`).join('');
}

/** The pointer of an extension's entry in `params._meta`, or of a field inside it. */
export function metaPointer(id: string, field?: string): string {
  return field === undefined ? jsonPointer('_meta', id) : jsonPointer('_meta', id, field);
}

/** A validation error as TypeBox (and Ajv) report it. */
export interface SchemaViolation {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params?: unknown;
  readonly message?: string | undefined;
}

/** Where a value broke its schema, and how, said for a person. */
export interface ViolationSite {
  /** Pointer relative to the validated value; a missing or unexpected property is named by its own pointer. */
  readonly pointer: string;
  /** The keyword that failed (`required`, `type`, ...), `''` when no violation was reported. */
  readonly keyword: string;
  readonly message: string;
}

function firstProperty(params: unknown, key: 'requiredProperties' | 'additionalProperties'): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const list = (params as Record<string, unknown>)[key];
  return Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
}

/** The first violation of `errors` as a site. Never throws. */
export function firstViolation(errors: Iterable<SchemaViolation>): ViolationSite {
  const [first] = errors;
  if (first === undefined) return { pointer: '', keyword: '', message: 'is invalid' };
  const missing = first.keyword === 'required' ? firstProperty(first.params, 'requiredProperties') : undefined;
  if (missing !== undefined) {
    return {
      pointer: `${first.instancePath}/${escapePointerSegment(missing)}`,
      keyword: 'required',
      message: 'is required',
    };
  }
  const extra =
    first.keyword === 'additionalProperties' ? firstProperty(first.params, 'additionalProperties') : undefined;
  if (extra !== undefined) {
    return {
      pointer: `${first.instancePath}/${escapePointerSegment(extra)}`,
      keyword: first.keyword,
      message: 'is not accepted',
    };
  }
  if (first.keyword === 'boolean')
    return { pointer: first.instancePath, keyword: 'boolean', message: 'is not accepted' };
  return { pointer: first.instancePath, keyword: first.keyword, message: first.message ?? 'is invalid' };
}

/** The last segment of `pointer` that names a property (array indexes skipped), unescaped; `fallback` when none. */
export function pointerField(pointer: string, fallback: string): string {
  const names = pointer
    .split('/')
    .slice(1)
    .filter((segment) => !/^\d+$/.test(segment));
  const last = names.at(-1);
  return last === undefined ? fallback : last.replaceAll('~1', '/').replaceAll('~0', '~');
}
