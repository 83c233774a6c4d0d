/**
 * SEP-2133 extension identifiers: `{vendor-prefix}/{extension-name}`, named
 * like `_meta` keys except that the prefix is mandatory.
 */

/** The vendor prefix of every extension this project publishes. Defined here, once. */
export const VENDOR_PREFIX = 'io.github.mcp-ext';

/** Second labels reserved for official MCP extensions (`io.modelcontextprotocol/...`, `dev.mcp/...`). */
export const RESERVED_SECOND_LABELS: readonly string[] = ['modelcontextprotocol', 'mcp'];

// A prefix label starts with a letter and ends with a letter or digit; hyphens inside.
const LABEL = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;
// A name starts and ends with an alphanumeric; hyphens, underscores, dots and alphanumerics inside.
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const VERSION_SUFFIX = /-v(\d+)$/;

/** Longest identifier accepted; SEP-2133 sets none, this bound keeps hostile input cheap. */
export const MAX_IDENTIFIER_LENGTH = 256;

export interface ParsedExtensionId {
  readonly id: string;
  readonly prefix: string;
  readonly name: string;
  /** The name without a `-vN` suffix: `errors-v2` -> `errors`. */
  readonly baseName: string;
  /** Wire generation: 1 for `errors`, N for `errors-vN`. */
  readonly generation: number;
  /** Whether the prefix is reserved for official MCP extensions. */
  readonly reserved: boolean;
}

export type IdentifierCheck =
  { readonly ok: true; readonly value: ParsedExtensionId } | { readonly ok: false; readonly reason: string };

/**
 * Parses and validates an extension identifier against SEP-2133. Never throws,
 * whatever `input` is.
 */
export function parseExtensionId(input: unknown): IdentifierCheck {
  if (typeof input !== 'string') return { ok: false, reason: 'identifier must be a string' };
  if (input.length === 0) return { ok: false, reason: 'identifier is empty' };
  if (input.length > MAX_IDENTIFIER_LENGTH) {
    return { ok: false, reason: `identifier is longer than ${MAX_IDENTIFIER_LENGTH} characters` };
  }
  const slash = input.indexOf('/');
  if (slash === -1) return { ok: false, reason: 'identifier has no vendor prefix (expected "vendor.prefix/name")' };
  const prefix = input.slice(0, slash);
  const name = input.slice(slash + 1);
  if (prefix.length === 0) return { ok: false, reason: 'vendor prefix is empty' };
  const labels = prefix.split('.');
  for (const label of labels) {
    if (!LABEL.test(label)) {
      return {
        ok: false,
        reason: `prefix label "${label}" must start with a letter, end with a letter or digit, and contain only letters, digits and hyphens`,
      };
    }
  }
  if (name.length === 0) return { ok: false, reason: 'extension name is empty' };
  if (!NAME.test(name)) {
    return {
      ok: false,
      reason: `extension name "${name}" must start and end with a letter or digit and contain only letters, digits, hyphens, underscores and dots`,
    };
  }
  const second = labels[1]?.toLowerCase();
  const match = VERSION_SUFFIX.exec(name);
  const generation = match ? Number(match[1]) : 1;
  return {
    ok: true,
    value: {
      id: input,
      prefix,
      name,
      baseName: match ? name.slice(0, match.index) : name,
      generation: Number.isSafeInteger(generation) && generation >= 1 ? generation : 1,
      reserved: second !== undefined && RESERVED_SECOND_LABELS.includes(second),
    },
  };
}

/** Whether `input` is a syntactically valid SEP-2133 identifier. */
export function isExtensionId(input: unknown): input is string {
  return parseExtensionId(input).ok;
}

/**
 * Builds this project's identifier for an extension name: `extensionId('errors')`
 * is `io.github.mcp-ext/errors`; `extensionId('errors', 2)` is `.../errors-v2`.
 * Throws on a name that would not make a valid identifier (a programming error).
 */
export function extensionId(name: string, generation = 1): string {
  if (!Number.isSafeInteger(generation) || generation < 1) {
    throw new RangeError(`extensionId: generation must be a positive integer, got ${String(generation)}`);
  }
  const id = `${VENDOR_PREFIX}/${name}${generation > 1 ? `-v${generation}` : ''}`;
  const check = parseExtensionId(id);
  if (!check.ok) throw new RangeError(`extensionId: ${check.reason}`);
  return id;
}

/**
 * Validates an identifier that *we* define or serve. Reserved prefixes are
 * refused unless listed in `allowReserved` (content-negotiation's draft alias).
 */
export function checkOwnIdentifier(id: string, allowReserved: readonly string[] = []): IdentifierCheck {
  const check = parseExtensionId(id);
  if (!check.ok) return check;
  if (check.value.reserved && !allowReserved.includes(id)) {
    return {
      ok: false,
      reason: `"${id}" uses a prefix reserved for official MCP extensions (second label "${check.value.prefix.split('.')[1] ?? ''}")`,
    };
  }
  return check;
}

/**
 * Picks the identifier both sides speak, preferring the newest generation.
 * `ours` is the list one package serves (e.g. `errors` and `errors-v2`);
 * `theirs` is the peer's advertised identifiers. Returns `undefined` when
 * nothing is shared.
 */
export function pickCommonIdentifier(ours: readonly string[], theirs: Iterable<string>): string | undefined {
  const peer = new Set(theirs);
  let best: { id: string; generation: number; index: number } | undefined;
  ours.forEach((id, index) => {
    if (!peer.has(id)) return;
    const parsed = parseExtensionId(id);
    const generation = parsed.ok ? parsed.value.generation : 1;
    // Newest generation wins; on a tie the order the package listed them in decides.
    if (!best || generation > best.generation) best = { id, generation, index };
  });
  return best?.id;
}
