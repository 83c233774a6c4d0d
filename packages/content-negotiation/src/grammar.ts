/**
 * The feature-tag grammar (SPEC.md section 2): a pure parser, a serializer
 * producing the canonical form, and the conflict rules. No I/O: problems are
 * returned as warnings for the caller to log.
 */
import { MAX_FEATURE_LENGTH, MAX_FEATURES } from './schema.js';
import { PRESENTATION_FORMATS, PRESENTATION_VERBOSITIES } from './call-presentation.js';

/** `tag`, `!tag`, `key=value`, `key!=value`. */
export type FeatureOperator = 'present' | 'absent' | 'equals' | 'not-equals';

/** One parsed feature tag; `name` is lowercase, `value` is set for `equals` and `not-equals`. */
export interface FeatureTag {
  readonly name: string;
  readonly op: FeatureOperator;
  readonly value?: string | undefined;
}

/** Why a tag was dropped: `index` is its position in the input list (-1 for a rule about several). */
export interface FeatureWarning {
  readonly index: number;
  /** The offending tag(s), shortened for logs. */
  readonly tag: string;
  readonly reason: string;
}

export interface ParsedFeatures {
  /** The tags in force, canonical, in first-seen order, free of duplicates and conflicts. */
  readonly tags: readonly FeatureTag[];
  readonly warnings: readonly FeatureWarning[];
}

/** Registry tags that only mean something present or absent. */
export const BOOLEAN_FEATURES = [
  'agent',
  'human',
  'mcp-capable',
  'interactive',
  'sampling',
  'elicitation',
  'roots',
  'tasks',
] as const;

/** Registry tags that take one value from a closed list (values compared case-insensitively). */
export const VALUED_FEATURES: Readonly<Record<string, readonly string[]>> = {
  verbosity: PRESENTATION_VERBOSITIES,
  format: PRESENTATION_FORMATS,
};

/** MCP client capabilities the registry mirrors as tags of the same name. */
export const CAPABILITY_FEATURES = ['sampling', 'elicitation', 'roots', 'tasks'] as const;

const NAME = '[A-Za-z][A-Za-z0-9._-]*';
const VALUE = '[A-Za-z0-9._+/:-]+';
const PRESENCE = new RegExp(`^(!?)(${NAME})$`);
const EQUALITY = new RegExp(`^(${NAME})(!?=)(${VALUE})$`);
const VENDOR_PREFIX = 'x-';

const BOOLEAN_SET: ReadonlySet<string> = new Set(BOOLEAN_FEATURES);

/** Shortens hostile input before it reaches a log line. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export type TagCheck =
  { readonly ok: true; readonly tag: FeatureTag } | { readonly ok: false; readonly reason: string };

/** Parses one tag against the grammar and the registry. Never throws, whatever `input` is. */
export function parseFeatureTag(input: unknown): TagCheck {
  if (typeof input !== 'string') return { ok: false, reason: 'a feature tag must be a string' };
  if (input.length === 0) return { ok: false, reason: 'empty feature tag' };
  if (input.length > MAX_FEATURE_LENGTH) return { ok: false, reason: `longer than ${MAX_FEATURE_LENGTH} characters` };
  let tag: FeatureTag;
  const presence = PRESENCE.exec(input);
  const equality = presence ? null : EQUALITY.exec(input);
  if (presence) {
    tag = { name: (presence[2] ?? '').toLowerCase(), op: presence[1] === '!' ? 'absent' : 'present' };
  } else if (equality) {
    tag = {
      name: (equality[1] ?? '').toLowerCase(),
      op: equality[2] === '!=' ? 'not-equals' : 'equals',
      value: equality[3] ?? '',
    };
  } else {
    return { ok: false, reason: 'does not match the grammar (tag, !tag, key=value, key!=value)' };
  }
  if (tag.name === VENDOR_PREFIX) {
    return { ok: false, reason: 'a vendor tag needs a name after "x-"' };
  }
  // The name comes from the peer: an own-property check, so `constructor` or `toString` is just an unknown tag.
  const allowed = Object.hasOwn(VALUED_FEATURES, tag.name) ? VALUED_FEATURES[tag.name] : undefined;
  if (BOOLEAN_SET.has(tag.name) && tag.value !== undefined) {
    return { ok: false, reason: `"${tag.name}" takes no value` };
  }
  if (allowed !== undefined) {
    if (tag.value === undefined) return { ok: false, reason: `"${tag.name}" needs a value (${allowed.join(', ')})` };
    const value = tag.value.toLowerCase();
    if (!allowed.includes(value)) {
      return { ok: false, reason: `"${tag.name}" must be one of ${allowed.join(', ')}` };
    }
    tag = { ...tag, value };
  }
  return { ok: true, tag };
}

/** The canonical text of a tag: `name`, `!name`, `name=value` or `name!=value`. */
export function formatFeatureTag(tag: FeatureTag): string {
  switch (tag.op) {
    case 'present':
      return tag.name;
    case 'absent':
      return `!${tag.name}`;
    case 'equals':
      return `${tag.name}=${tag.value ?? ''}`;
    case 'not-equals':
      return `${tag.name}!=${tag.value ?? ''}`;
  }
}

/** The canonical list of tags, as a client advertises it; `parseFeatures` reads it back unchanged. */
export function serializeFeatures(tags: readonly FeatureTag[]): string[] {
  return tags.map(formatFeatureTag);
}

function sameTag(a: FeatureTag, b: FeatureTag): boolean {
  return a.name === b.name && a.op === b.op && a.value === b.value;
}

/**
 * The conflict rules (SPEC.md CN-6), applied to well-formed tags. Each
 * rule drops every tag involved rather than picking one, so the outcome
 * does not depend on the order the client listed them in.
 */
function resolveConflicts(tags: readonly FeatureTag[], warnings: FeatureWarning[]): FeatureTag[] {
  const dropped = new Set<FeatureTag>();
  const drop = (involved: readonly FeatureTag[], reason: string): void => {
    for (const tag of involved) dropped.add(tag);
    // Well-formed tags only, at most MAX_FEATURES of them: bounded without shortening.
    warnings.push({ index: -1, tag: involved.map(formatFeatureTag).join(' '), reason });
  };
  const byName = new Map<string, FeatureTag[]>();
  for (const tag of tags) {
    const list = byName.get(tag.name);
    if (list) list.push(tag);
    else byName.set(tag.name, [tag]);
  }
  for (const [name, list] of byName) {
    const present = list.filter((tag) => tag.op === 'present');
    const absent = list.filter((tag) => tag.op === 'absent');
    const equals = list.filter((tag) => tag.op === 'equals');
    const notEquals = list.filter((tag) => tag.op === 'not-equals');
    if (present.length > 0 && absent.length > 0) {
      drop([...present, ...absent], `"${name}" is both declared and negated`);
    }
    if (equals.length > 1) {
      drop(equals, `"${name}" has more than one value`);
    } else if (equals.length === 1) {
      const [only] = equals;
      const negated = notEquals.filter((tag) => tag.value === only?.value);
      if (negated.length > 0)
        drop([...equals, ...negated], `"${name}" both equals and differs from "${only?.value ?? ''}"`);
      else if (absent.length > 0 && !absent.some((tag) => dropped.has(tag))) {
        drop([...absent, ...equals], `"${name}" is negated yet given a value`);
      }
    }
  }
  const agent = tags.filter((tag) => tag.name === 'agent' && tag.op === 'present' && !dropped.has(tag));
  const human = tags.filter((tag) => tag.name === 'human' && tag.op === 'present' && !dropped.has(tag));
  if (agent.length > 0 && human.length > 0) drop([...agent, ...human], '"agent" and "human" exclude each other');
  return tags.filter((tag) => !dropped.has(tag));
}

/**
 * Parses a client's feature list. Never throws, whatever `input` is: a
 * malformed entry is dropped with a warning, entries beyond
 * {@link MAX_FEATURES} are ignored, duplicates collapse, and conflicting
 * tags are dropped by the conflict rules. Idempotent on its own output:
 * `parseFeatures(serializeFeatures(parseFeatures(x).tags)).tags` equals
 * `parseFeatures(x).tags`.
 */
export function parseFeatures(input: unknown): ParsedFeatures {
  const warnings: FeatureWarning[] = [];
  if (input === undefined) return { tags: [], warnings };
  if (!Array.isArray(input)) {
    warnings.push({ index: -1, tag: shown(input), reason: 'features must be an array of strings' });
    return { tags: [], warnings };
  }
  const list: readonly unknown[] = input;
  if (list.length > MAX_FEATURES) {
    warnings.push({
      index: MAX_FEATURES,
      tag: `${list.length - MAX_FEATURES} more`,
      reason: `only the first ${MAX_FEATURES} feature tags are read`,
    });
  }
  const unique: FeatureTag[] = [];
  const count = Math.min(list.length, MAX_FEATURES);
  for (let index = 0; index < count; index++) {
    const raw = list[index];
    const check = parseFeatureTag(raw);
    if (!check.ok) {
      warnings.push({ index, tag: shown(raw), reason: check.reason });
      continue;
    }
    if (!unique.some((tag) => sameTag(tag, check.tag))) unique.push(check.tag);
  }
  return { tags: resolveConflicts(unique, warnings), warnings };
}

/**
 * `true` when `name` is declared (`name` or `name=value`), `false` when it is
 * negated (`!name`), `undefined` when the client said nothing about it.
 */
export function hasFeature(tags: readonly FeatureTag[], name: string): boolean | undefined {
  const key = name.toLowerCase();
  let answer: boolean | undefined;
  for (const tag of tags) {
    if (tag.name !== key) continue;
    if (tag.op === 'present' || tag.op === 'equals') return true;
    if (tag.op === 'absent') answer = false;
  }
  return answer;
}

/** The value of `name=value`, or `undefined`. */
export function featureValue(tags: readonly FeatureTag[], name: string): string | undefined {
  const key = name.toLowerCase();
  return tags.find((tag) => tag.name === key && tag.op === 'equals')?.value;
}

/** The values excluded with `name!=value`. */
export function excludedValues(tags: readonly FeatureTag[], name: string): string[] {
  const key = name.toLowerCase();
  return tags
    .filter((tag) => tag.name === key && tag.op === 'not-equals')
    .flatMap((tag) => (tag.value === undefined ? [] : [tag.value]));
}

/** `agent` and `human` are one dimension: a per-call override of either replaces both. */
function dimension(name: string): string {
  return name === 'agent' || name === 'human' ? 'audience' : name;
}

/**
 * The features in force for one call: the advertised ones, with every
 * dimension the override mentions replaced by the override's tags. Both
 * lists are already conflict-free, so the merge is too.
 */
export function mergeFeatures(base: readonly FeatureTag[], override: readonly FeatureTag[]): FeatureTag[] {
  const replaced = new Set(override.map((tag) => dimension(tag.name)));
  return [...base.filter((tag) => !replaced.has(dimension(tag.name))), ...override];
}
