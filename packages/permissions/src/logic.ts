/**
 * The pure logic of scoped permissions: scope declarations, the scopes a
 * tool needs, request parsing, grant decisions, session records, and the
 * grant in words. No I/O here; the server and client halves only translate.
 */
import { createHash } from 'node:crypto';
import { ConfigurationError, type ToolInfo } from '@ext/core';
import {
  firstViolation,
  isRecord,
  lazyValidator,
  metaFault,
  renamedKeys,
  type JsonValue,
  type Parsed,
  type SchemaViolation,
} from '@ext/core/kit';
import {
  PermissionCheckRequestSchema,
  PermissionsRequestMetaSchema,
  SCOPE_PATTERN_SOURCE,
  ScopeNegotiationRequestSchema,
  type DeniedScope,
  type PermissionCheckRequest,
  type ScopeDefinition,
  type ScopeNegotiationRequest,
} from './schema.js';

const SCOPE_PATTERN = new RegExp(SCOPE_PATTERN_SOURCE);

/** Whether `value` is a well-formed scope token. */
export function isScopeName(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_PATTERN.test(value);
}

/** A scope as a server author declares it (`permissionsServer({ scopes })`); advertised as a `ScopeDefinition`. */
export interface ScopeDeclaration {
  readonly name: string;
  /** A verb phrase that completes "can ...", e.g. "read tickets". */
  readonly description: string;
  /** The tools that need this scope. */
  readonly tools: readonly string[];
  /** Granted on negotiation without asking anyone (low risk). Advertised as `auto_grant`. */
  readonly autoGrant?: boolean | undefined;
  /** @deprecated Use `autoGrant`; the snake_case spelling goes in the next major. */
  readonly auto_grant?: boolean | undefined;
}

/**
 * Validates the server's scope declarations; returns them by name, as
 * advertised. Throws `ConfigurationError` naming the entry.
 */
export function indexScopes(scopes: readonly ScopeDeclaration[], where: string): ReadonlyMap<string, ScopeDefinition> {
  if (!Array.isArray(scopes))
    throw new ConfigurationError('INVALID_OPTION', `${where}: scopes must be an array of scope definitions`);
  const byName = new Map<string, ScopeDefinition>();
  scopes.forEach((scope: unknown, index) => {
    const entry = renamedKeys(`${where} scopes`, isRecord(scope) ? scope : {}, { auto_grant: 'autoGrant' });
    const name = entry.name;
    if (!isScopeName(name)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: scopes[${index}].name must be a scope token (no spaces, 1 to 128 characters)`,
      );
    }
    if (typeof entry.description !== 'string' || entry.description.length === 0) {
      throw new ConfigurationError('INVALID_OPTION', `${where}: scope "${name}" needs a description`);
    }
    const tools = entry.tools ?? [];
    if (!Array.isArray(tools) || !tools.every((tool) => typeof tool === 'string')) {
      throw new ConfigurationError('INVALID_OPTION', `${where}: scope "${name}": tools must be an array of tool names`);
    }
    if (entry.autoGrant !== undefined && typeof entry.autoGrant !== 'boolean') {
      throw new ConfigurationError('INVALID_OPTION', `${where}: scope "${name}": autoGrant must be a boolean`);
    }
    if (byName.has(name)) throw new ConfigurationError('INVALID_OPTION', `${where}: scope "${name}" is declared twice`);
    const definition: ScopeDefinition = { name, description: entry.description, tools: [...tools] };
    if (entry.autoGrant !== undefined) definition.auto_grant = entry.autoGrant;
    byName.set(name, definition);
  });
  return byName;
}

/**
 * The scopes a tool needs: those its author listed in
 * `Tool._meta[id].required_scopes` plus every declared scope whose `tools`
 * name it, sorted. Throws `ConfigurationError` naming the tool and the
 * scope when the author's entry is malformed or names an undeclared scope.
 */
export function requiredScopesFor(
  tool: Pick<ToolInfo, 'name' | '_meta'>,
  id: string,
  scopes: ReadonlyMap<string, ScopeDefinition>,
): string[] {
  const required = new Set<string>();
  const raw = tool._meta?.[id];
  if (raw !== undefined) {
    const list = isRecord(raw) ? raw.required_scopes : undefined;
    if (!Array.isArray(list)) {
      throw new ConfigurationError(
        'INVALID_TOOL_META',
        `tool "${tool.name}": _meta["${id}"] must be an object with a required_scopes array`,
      );
    }
    for (const scope of list) {
      if (typeof scope !== 'string' || !scopes.has(scope)) {
        throw new ConfigurationError(
          'UNKNOWN_SCOPE',
          `tool "${tool.name}": required scope ${JSON.stringify(scope)} is not declared in the permissionsServer scopes option`,
        );
      }
      required.add(scope);
    }
  }
  for (const scope of scopes.values()) if (scope.tools.includes(tool.name)) required.add(scope.name);
  return [...required].sort();
}

/** The required scopes not in `held`, in the order given. */
export function missingScopes(required: readonly string[], held: Iterable<string>): string[] {
  const have = new Set(held);
  return required.filter((scope) => !have.has(scope));
}

/** The scopes of `lists`, each once, in first-seen order. */
export function unionScopes(...lists: readonly (readonly string[] | undefined)[]): string[] {
  return [...new Set(lists.flatMap((list) => list ?? []))];
}

// Compiled on first use: keeps import free of work.
const metaValidator = lazyValidator(PermissionsRequestMetaSchema);
const checkValidator = lazyValidator(PermissionCheckRequestSchema);
const negotiateValidator = lazyValidator(ScopeNegotiationRequestSchema);

/** Reads `params._meta[id]` as it arrived: the session token, or `undefined` when absent. Never throws. */
export function parseRequestMeta(raw: unknown, id: string): Parsed<string | undefined> {
  if (raw === undefined) return { ok: true, value: undefined };
  if (metaValidator().Check(raw)) return { ok: true, value: raw.session_token };
  if (!isRecord(raw)) return metaFault(id, '', `params._meta["${id}"] must be an object with a "session_token"`);
  return metaFault(
    id,
    '/session_token',
    `session_token in params._meta["${id}"] must be a string of 1 to 512 characters`,
  );
}

/** Where a method's params first broke their schema; the field is the top-level one (the FIRST segment). */
function violation(errors: Iterable<SchemaViolation>): { pointer: string; field: string } {
  const { pointer } = firstViolation(errors);
  return { pointer, field: pointer.split('/').filter(Boolean)[0] ?? 'params' };
}

/** Validates `<id>/check` params. Never throws. */
export function parseCheckRequest(params: Readonly<Record<string, unknown>>): Parsed<PermissionCheckRequest> {
  const check = checkValidator();
  const body = withoutMeta(params);
  if (check.Check(body)) return { ok: true, value: body };
  const { pointer, field } = violation(check.Errors(body));
  return {
    ok: false,
    pointer,
    field,
    message: `Invalid permission check: ${field} ${field === 'tool' ? 'must be a tool name' : field === 'scopes_held' ? 'must be an array of scope names' : 'is malformed'}`,
  };
}

/** Validates `<id>/negotiate` params. Never throws. */
export function parseNegotiationRequest(params: Readonly<Record<string, unknown>>): Parsed<ScopeNegotiationRequest> {
  const check = negotiateValidator();
  const body = withoutMeta(params);
  if (check.Check(body)) return { ok: true, value: body };
  const { pointer, field } = violation(check.Errors(body));
  const what: Record<string, string> = {
    requested_scopes: 'must be an array of at most 100 scope names',
    ttl_seconds: 'must be a positive integer',
    justification: 'must be a string of at most 2000 characters',
  };
  // `field` comes from the request's own keys: only `what`'s own entries name a problem.
  const problem = Object.hasOwn(what, field) ? what[field] : undefined;
  return { ok: false, pointer, field, message: `Invalid scope negotiation: ${field} ${problem ?? 'is malformed'}` };
}

function withoutMeta(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/** What a grant policy decides about the scopes it is asked for. */
export interface GrantDecision {
  readonly granted: readonly string[];
  readonly denied?: readonly DeniedScope[] | undefined;
}

/** The default policy: scopes marked `auto_grant` are granted; the others need consent elsewhere. */
export function defaultGrant(
  requested: readonly string[],
  scopes: ReadonlyMap<string, ScopeDefinition>,
  elevationUrl: string | undefined,
): GrantDecision {
  const granted: string[] = [];
  const denied: DeniedScope[] = [];
  for (const scope of requested) {
    if (scopes.get(scope)?.auto_grant === true) granted.push(scope);
    else {
      denied.push({
        scope,
        reason:
          elevationUrl === undefined
            ? 'This scope needs the consent of a person; it cannot be granted by negotiation.'
            : `This scope needs the consent of a person: grant it at ${elevationUrl}`,
      });
    }
  }
  return { granted, denied };
}

/**
 * Reconciles what the policy said with what was asked: a granted scope
 * that was not asked for is dropped, and an asked scope the policy neither
 * granted nor denied is denied with a default reason.
 */
export function settleDecision(
  asked: readonly string[],
  decision: GrantDecision,
): { granted: string[]; denied: DeniedScope[] } {
  const askedSet = new Set(asked);
  const granted = unionScopes(decision.granted.filter((scope) => askedSet.has(scope)));
  const grantedSet = new Set(granted);
  const denied: DeniedScope[] = [];
  const seen = new Set<string>();
  for (const entry of decision.denied ?? []) {
    if (!askedSet.has(entry.scope) || grantedSet.has(entry.scope) || seen.has(entry.scope)) continue;
    seen.add(entry.scope);
    denied.push({
      scope: entry.scope,
      reason: typeof entry.reason === 'string' && entry.reason !== '' ? entry.reason : 'Denied by the server policy.',
    });
  }
  for (const scope of asked) {
    if (!grantedSet.has(scope) && !seen.has(scope)) {
      seen.add(scope);
      denied.push({ scope, reason: 'Not granted by the server policy.' });
    }
  }
  return { granted, denied };
}

/** `value` with the server's `elevation_url` added last, when it has one. */
export function withElevation<T extends Record<string, unknown>>(value: T, elevationUrl: string | undefined): T {
  return elevationUrl === undefined ? value : { ...value, elevation_url: elevationUrl };
}

/** A negotiated session as the store keeps it (times in the server clock's milliseconds). */
export interface SessionRecord {
  readonly scopes: readonly string[];
  readonly expires_at: number;
  readonly last_used: number;
  readonly idle_seconds: number;
}

/** The store key of a session: scoped by principal, and keyed by the token's hash so the store never holds the bearer token. */
export function sessionKey(prefix: string, principal: string, token: string): string {
  const digest = createHash('sha256').update(token).digest('base64url');
  return `${prefix}:session:${encodeURIComponent(principal)}:${digest}`;
}

/** The record as the store holds it. */
export function sessionToJson(record: SessionRecord): JsonValue {
  return {
    scopes: [...record.scopes],
    expires_at: record.expires_at,
    last_used: record.last_used,
    idle_seconds: record.idle_seconds,
  };
}

/** Reads a stored session; `undefined` for anything this version cannot read. */
export function parseSession(value: JsonValue | undefined): SessionRecord | undefined {
  if (!isRecord(value)) return undefined;
  const { scopes, expires_at, last_used, idle_seconds } = value;
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) return undefined;
  if (typeof expires_at !== 'number' || typeof last_used !== 'number' || typeof idle_seconds !== 'number')
    return undefined;
  return { scopes, expires_at, last_used, idle_seconds };
}

/** Whether a session is still usable at `now`: before its absolute expiry and not idle for its timeout. */
export function sessionActive(record: SessionRecord, now: number): boolean {
  return now < record.expires_at && now - record.last_used < record.idle_seconds * 1000;
}

/** The session after a use at `now`, and how long the store should keep it (milliseconds, at least 1). */
export function touchSession(record: SessionRecord, now: number): { record: SessionRecord; ttlMs: number } {
  const touched: SessionRecord = { ...record, last_used: now };
  return { record: touched, ttlMs: Math.max(1, Math.min(record.idle_seconds * 1000, record.expires_at - now)) };
}

/** What the client can and cannot do, in words. */
export interface GrantSummary {
  readonly can: readonly ScopeDefinition[];
  readonly cannot: readonly ScopeDefinition[];
  /** E.g. "Can read tickets. Cannot delete tickets (needs delete:tickets)." */
  readonly text: string;
}

function joinPhrases(phrases: readonly string[]): string {
  if (phrases.length <= 1) return phrases.join('');
  return `${phrases.slice(0, -1).join(', ')} and ${phrases[phrases.length - 1] ?? ''}`;
}

/** Puts the server's scope definitions and a grant into sentences. */
export function describeGrant(scopes: readonly ScopeDefinition[], held: Iterable<string>): GrantSummary {
  const have = new Set(held);
  const can = scopes.filter((scope) => have.has(scope.name));
  const cannot = scopes.filter((scope) => !have.has(scope.name));
  const sentences: string[] = [];
  if (can.length > 0) sentences.push(`Can ${joinPhrases(can.map((scope) => scope.description))}.`);
  if (cannot.length > 0) {
    sentences.push(`Cannot ${joinPhrases(cannot.map((scope) => `${scope.description} (needs ${scope.name})`))}.`);
  }
  if (sentences.length === 0) sentences.push('This server declares no scopes.');
  return { can, cannot, text: sentences.join(' ') };
}
