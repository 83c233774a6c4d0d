/**
 * The CEL expressions of the policy config: `allow` (who may use a tool),
 * `when` (whether a policy field applies to a call) and `units` (what a call
 * costs, read from its arguments). Each is compiled once, when the config is
 * loaded, so that a typo fails the load and not a call. Pure.
 *
 * Failing closed is the callers' part: a failed `allow` denies, a failed
 * `when` on a gate means the gate applies. Here a failure only throws, with
 * the field it belongs to; no failure ever turns into a default value.
 *
 * The expression is the operator's, the arguments (and to a degree the
 * claims) are the caller's, so the limits are on both: the expression's size
 * and nesting are capped when it is compiled, shapes whose cost grows faster
 * than the input are refused (a loop inside a loop, a regular expression that
 * is not a literal or that can backtrack exponentially), and the input is
 * copied into a form the library cannot trip on, within a depth and a size.
 */
import { brandError, isBrandedError } from '@ext/core/kit';
import { ConfigurationError } from '@ext/core';
import {
  Environment,
  EvaluationError,
  ParseError,
  type ParseResult,
  type SourceRange,
  TypeError as CelTypeError,
} from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celInput, UnreadableInput } from './cel-input.js';
import { review } from './cel-review.js';

/** `predicate`: `allow` and `when`, a bool. `number`: `units`, an int, uint or double. */
export type ConditionKind = 'predicate' | 'number';

/** What an expression can read: the caller, the tool and the call. */
export interface ConditionInput {
  readonly principal: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  /** The caller's token claims; `{}` when there is no token. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The tool's exposed name. */
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface CompiledCondition<T> {
  /** The expression as written. */
  readonly source: string;
  /** The config path it was written at (`policies.write_file.confirm.when`). */
  readonly field: string;
  /** Throws a {@link ConditionEvaluationError} when the expression cannot be evaluated for `input`. */
  evaluate(input: ConditionInput): T;
}

/** The longest expression accepted, in UTF-16 code units. */
export const MAX_CONDITION_LENGTH = 4096;

// Parse-time limits of the library; an expression within 4096 characters that
// needs more is hostile or a mistake.
const LIMITS = { maxAstNodes: 1024, maxDepth: 32, maxListElements: 256, maxMapEntries: 256, maxCallArguments: 8 };

// Past these, reading `args` / `claims` fails the condition instead of the process.

const ACCEPTED_TYPES: Readonly<Record<ConditionKind, readonly string[]>> = {
  // `dyn` (as `args.flag` is) can only be told at evaluation, where it is checked.
  predicate: ['bool', 'dyn'],
  number: ['int', 'uint', 'double', 'dyn'],
};

/** An expression that cannot be compiled: it does not parse, names something undeclared, or has the wrong type. */
export class ConditionError extends ConfigurationError {
  static override readonly brand: string = 'io.github.mcp-ext/gateway/ConditionError';
  /** The config path of the expression. */
  readonly field: string;
  /** The expression as written. */
  readonly expression: string;
  /** 1-based line and column (in code points) of the fault in `expression`. */
  readonly line: number;
  readonly column: number;
  /** What is wrong, without the field or the position. */
  readonly reason: string;

  constructor(field: string, expression: string, index: number, reason: string) {
    const place = placeOf(expression, index);
    super('INVALID_CONDITION', `${field}: ${describePlace(expression, place)}: ${reason}`);
    this.name = 'ConditionError';
    this.field = field;
    this.expression = expression;
    this.line = place.line;
    this.column = place.column;
    this.reason = reason;
    brandError(this, ConditionError.brand);
  }

  static override isInstance(value: unknown): value is ConditionError {
    return isBrandedError(value, ConditionError.brand);
  }
}

/** A compiled expression that cannot be evaluated for one call: a missing key, a wrong type, a result of the wrong kind. */
export class ConditionEvaluationError extends Error {
  static readonly brand: string = 'io.github.mcp-ext/gateway/ConditionEvaluationError';
  readonly code = 'CONDITION_EVALUATION_FAILED';
  /** The config path of the expression. */
  readonly field: string;
  /** What went wrong, without the field (`No such key: path (column 6)`). */
  readonly reason: string;

  constructor(field: string, reason: string, cause?: unknown) {
    super(`${field}: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'ConditionEvaluationError';
    this.field = field;
    this.reason = reason;
    brandError(this, ConditionEvaluationError.brand);
  }

  static isInstance(value: unknown): value is ConditionEvaluationError {
    return isBrandedError(value, ConditionEvaluationError.brand);
  }
}

/** `allow` / `when`: compiled once at config load; throws a {@link ConditionError} naming `field`. */
export function compilePredicate(source: string, field: string): CompiledCondition<boolean> {
  return compile(source, field, 'predicate', readBool);
}

/** `units`: compiled once at config load; evaluates to a finite number of at least 0. */
export function compileNumber(source: string, field: string): CompiledCondition<number> {
  return compile(source, field, 'number', readNumber);
}

// --- compiling ---

let shared: Environment | undefined;

// Built on first use rather than at import, and shared: building one is the costly part.
function environment(): Environment {
  shared ??= new Environment({ limits: LIMITS })
    .registerVariable('principal', 'string')
    .registerVariable('scopes', 'list<string>')
    .registerVariable('roles', 'list<string>')
    .registerVariable('claims', 'map<string, dyn>')
    .registerVariable('tool', 'string')
    .registerVariable('args', 'map<string, dyn>');
  return shared;
}

interface Uses {
  readonly args: boolean;
  readonly claims: boolean;
}

function compile<T>(
  source: string,
  field: string,
  kind: ConditionKind,
  read: (value: unknown, field: string) => T,
): CompiledCondition<T> {
  const { parsed, uses } = prepare(source, field, kind);
  return Object.freeze({
    source,
    field,
    evaluate(input: ConditionInput): T {
      let value: unknown;
      try {
        value = parsed(context(input, uses));
      } catch (error) {
        throw new ConditionEvaluationError(field, failureReason(error, source), error);
      }
      return read(value, field);
    },
  });
}

function prepare(source: string, field: string, kind: ConditionKind): { parsed: ParseResult; uses: Uses } {
  if (source.length > MAX_CONDITION_LENGTH) {
    throw new ConditionError(field, source, MAX_CONDITION_LENGTH, `is longer than ${MAX_CONDITION_LENGTH} characters`);
  }
  const { parsed, type } = parseAndCheck(source, field);
  if (!ACCEPTED_TYPES[kind].includes(type)) {
    const wanted = kind === 'predicate' ? 'a bool' : 'a number (int, uint or double)';
    throw new ConditionError(field, source, parsed.ast.start, `must evaluate to ${wanted}, not ${type}`);
  }
  const names = new Set<string>();
  const problem = review(parsed.ast, false, names);
  if (problem !== undefined) throw new ConditionError(field, source, problem.at, problem.reason);
  return { parsed, uses: { args: names.has('args'), claims: names.has('claims') } };
}

function parseAndCheck(source: string, field: string): { parsed: ParseResult; type: string } {
  let parsed: ParseResult;
  let checked: ReturnType<ParseResult['check']>;
  try {
    parsed = environment().parse(source);
    // Checking stores the static types in the tree, so evaluation does not check again.
    checked = parsed.check();
  } catch (error) {
    throw compileError(field, source, error);
  }
  if (!checked.valid || checked.type === undefined) throw compileError(field, source, checked.error);
  return { parsed, type: checked.type };
}

function compileError(field: string, source: string, error: unknown): ConditionError {
  if (error instanceof ParseError || error instanceof CelTypeError) {
    return new ConditionError(field, source, error.range?.start ?? 0, error.summary);
  }
  // Not the library's own error (a stack overflow on a pathological shape): still the expression's fault.
  const reason = error instanceof Error ? error.message : 'does not type-check';
  return new ConditionError(field, source, 0, `cannot be compiled: ${reason}`);
}

// --- evaluating ---

function context(input: ConditionInput, uses: Uses): Record<string, unknown> {
  return {
    principal: input.principal,
    scopes: input.scopes,
    roles: input.roles,
    tool: input.tool,
    // Copied only when read: a condition on the principal costs nothing however large the arguments.
    claims: uses.claims ? celInput('claims', input.claims) : new Map(),
    args: uses.args ? celInput('args', input.args) : new Map(),
  };
}

function failureReason(error: unknown, source: string): string {
  if (error instanceof UnreadableInput) return error.message;
  if (error instanceof EvaluationError) {
    return error.range === undefined ? error.summary : `${error.summary} (${placeText(source, error.range)})`;
  }
  // Not the library's own error: a string grown past the engine's limit, a getter that throws.
  return error instanceof Error ? error.message : 'evaluation failed';
}

function readBool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new ConditionEvaluationError(field, `evaluated to ${celTypeOf(value)}, not a bool`);
}

function readNumber(value: unknown, field: string): number {
  const number = asNumber(value);
  if (number === undefined) throw new ConditionEvaluationError(field, `evaluated to ${celTypeOf(value)}, not a number`);
  if (!Number.isFinite(number))
    throw new ConditionEvaluationError(field, `evaluated to ${number}, not a finite number`);
  if (number < 0) throw new ConditionEvaluationError(field, `evaluated to ${number}, a negative number of units`);
  return number + 0; // -0 becomes 0
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof UnsignedInt) return Number(value.valueOf());
  return undefined;
}

function celTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof UnsignedInt) return 'a uint';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Map) return 'a map';
  const names: Partial<Record<string, string>> = {
    bigint: 'an int',
    number: 'a double',
    string: 'a string',
    boolean: 'a bool',
  };
  return names[typeof value] ?? `a ${typeof value}`;
}

// --- places ---

interface Place {
  readonly line: number;
  readonly column: number;
}

function placeOf(source: string, index: number): Place {
  const lines = source.slice(0, index).split('\n');
  const last = lines[lines.length - 1] ?? '';
  return { line: lines.length, column: Array.from(last).length + 1 };
}

function describePlace(source: string, place: Place): string {
  return source.includes('\n') ? `line ${place.line}, column ${place.column}` : `column ${place.column}`;
}

function placeText(source: string, range: SourceRange): string {
  return describePlace(source, placeOf(source, range.start));
}
