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
import { brandError, ConfigurationError, isBrandedError } from '@ext/core';
import {
  type ASTNode,
  Environment,
  EvaluationError,
  ParseError,
  type ParseResult,
  type SourceRange,
  TypeError as CelTypeError,
} from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';

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
const MAX_INPUT_DEPTH = 64;
const MAX_INPUT_VALUES = 100_000;

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

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

interface Problem {
  readonly at: number;
  readonly reason: string;
}

/** Refuses what the type checker lets through but costs too much on hostile input; records the names read. */
function review(node: ASTNode, inLoop: boolean, names: Set<string>): Problem | undefined {
  if (node.op === 'id') {
    names.add(node.args);
    return undefined;
  }
  if (node.op === 'rcall') {
    const [name, receiver, args] = node.args;
    if (name === 'matches') {
      const problem = patternProblem(args[0], node);
      if (problem !== undefined) return problem;
    }
    if (MACROS.has(name) && args[0]?.op === 'id') {
      // Nested loops cost the product of two input sizes; chained ones (`a.filter(..).map(..)`) only the sum.
      if (inLoop) return { at: node.start, reason: `${name}() inside the body of another macro is not allowed` };
      return reviewAll([receiver], inLoop, names) ?? reviewAll(args, true, names);
    }
  }
  return reviewAll(childrenOf(node), inLoop, names);
}

function reviewAll(nodes: readonly ASTNode[], inLoop: boolean, names: Set<string>): Problem | undefined {
  for (const node of nodes) {
    const problem = review(node, inLoop, names);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function childrenOf(node: ASTNode): readonly ASTNode[] {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [node.args[0]];
    case 'call':
      return node.args[1];
    case 'rcall':
      return [node.args[1], ...node.args[2]];
    case 'map':
      return node.args.flat();
    case '!_':
    case '-_':
      return [node.args];
    default:
      return node.args;
  }
}

// The library runs `matches` with JavaScript's backtracking engine, not RE2, on
// every call: a pattern taken from the input, or one that backtracks
// exponentially, would let one call stall the gateway.
function patternProblem(pattern: ASTNode | undefined, call: ASTNode): Problem | undefined {
  if (pattern?.op !== 'value' || typeof pattern.args !== 'string') {
    return { at: (pattern ?? call).start, reason: 'matches() takes a string literal as its pattern' };
  }
  try {
    new RegExp(pattern.args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'invalid';
    return { at: pattern.start, reason: `matches() pattern is not a valid regular expression: ${reason}` };
  }
  if (!backtracks(pattern.args)) return undefined;
  const reason =
    'matches() pattern can backtrack exponentially (a repeated group that holds a repetition or an alternation, or a back-reference)';
  return { at: pattern.start, reason };
}

/**
 * Whether a pattern can backtrack exponentially: a back-reference, or a group
 * repeated by `*`, `+` or `{..}` that itself holds a repetition or an
 * alternation (`(a+)+`, `(a|ab)*`). A heuristic that errs towards refusing
 * (`(\.[a-z]+)*` is safe but refused).
 */
function backtracks(pattern: string): boolean {
  if (/\\[1-9]|\\k</.test(pattern)) return true;
  // Escapes and character classes cannot repeat or alternate: each is one atom.
  const atoms = pattern.replace(/\\[\s\S]/g, 'x').replace(/\[[^\]]*\]/g, 'x');
  const groups: boolean[] = []; // per open group: whether it holds a repetition or an alternation
  let riskyGroupJustClosed = false;
  for (let index = 0; index < atoms.length; index += 1) {
    const char = atoms.charAt(index);
    const repeatsRiskyGroup = riskyGroupJustClosed;
    riskyGroupJustClosed = false;
    if (char === '(') {
      groups.push(false);
      // `(?:`, `(?=`, `(?<name>`: that `?` repeats nothing.
      if (atoms.charAt(index + 1) === '?') index += 1;
    } else if (char === ')') {
      riskyGroupJustClosed = groups.pop() ?? false;
      if (riskyGroupJustClosed) markInnermost(groups);
    } else if ('*+{?|'.includes(char)) {
      if (repeatsRiskyGroup && '*+{'.includes(char)) return true;
      markInnermost(groups);
    }
  }
  return false;
}

function markInnermost(groups: boolean[]): void {
  if (groups.length > 0) groups[groups.length - 1] = true;
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

/** Input the library cannot read: too deep, too large, or not JSON. */
class UnreadableInput extends Error {}

interface Walk {
  readonly name: string;
  left: number;
}

function celInput(name: string, value: unknown): unknown {
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
