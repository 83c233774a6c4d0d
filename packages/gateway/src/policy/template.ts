/**
 * The argument templates of compensations: a string starting with `$` reads
 * a value from the completed step, `$args.path` from its arguments and
 * `$result.path` from its result; `.name`, `["any key"]`, `[0]` and `[*]`
 * (every item of an array, the rest of the path read from each) walk into
 * it. `$$...` is the literal string `$...`. Pure.
 */
import { brandError, isBrandedError } from '@ext/core/kit';

/** One step of a path: a property, an array index, or every item of an array. */
export type PathStep =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'each' };

/** A parsed expression: where it starts and the steps from there. */
export interface Expression {
  readonly root: 'args' | 'result';
  readonly steps: readonly PathStep[];
}

/** An expression that does not parse, or that names a value the step does not have. */
export class TemplateError extends Error {
  static readonly brand: string = 'io.github.mcp-ext/gateway/TemplateError';
  /** The expression at fault, as written. */
  readonly expression: string;

  constructor(expression: string, message: string) {
    super(message);
    this.name = 'TemplateError';
    this.expression = expression;
    brandError(this, TemplateError.brand);
  }

  static isInstance(value: unknown): value is TemplateError {
    return isBrandedError(value, TemplateError.brand);
  }
}

const ROOT = /^\$(args|result)(?![A-Za-z0-9_$-])/;
const KEY = /^\.([A-Za-z_][A-Za-z0-9_-]*)/;
const INDEX = /^\[(0|[1-9][0-9]{0,8})\]/;
const QUOTED = /^\[("(?:[^"\\]|\\.)*")\]/;

/** Whether `value` is an expression (a string starting with one `$`), rather than a value taken as it is. */
export function isExpression(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('$') && !value.startsWith('$$');
}

function nextStep(rest: string): { step: PathStep; length: number } | undefined {
  if (rest.startsWith('[*]')) return { step: { kind: 'each' }, length: 3 };
  const key = KEY.exec(rest);
  if (key?.[1] !== undefined) return { step: { kind: 'key', key: key[1] }, length: key[0].length };
  const index = INDEX.exec(rest);
  if (index?.[1] !== undefined) return { step: { kind: 'index', index: Number(index[1]) }, length: index[0].length };
  const quoted = QUOTED.exec(rest)?.[1];
  if (quoted === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(quoted);
  } catch {
    // An escape JSON does not know: not a step.
    return undefined;
  }
  return typeof parsed === 'string' ? { step: { kind: 'key', key: parsed }, length: quoted.length + 2 } : undefined;
}

/** Parses `$args...` / `$result...`; throws a `TemplateError` saying where it stops making sense. */
export function parseExpression(text: string): Expression {
  const root = ROOT.exec(text);
  if (root?.[1] === undefined) {
    throw new TemplateError(text, `"${text}" must start with $args or $result (write $$ for a literal $)`);
  }
  const steps: PathStep[] = [];
  let at = root[0].length;
  while (at < text.length) {
    const next = nextStep(text.slice(at));
    if (next === undefined) {
      throw new TemplateError(
        text,
        `"${text}" cannot be read from "${text.slice(at)}": use .name, ["key"], [0] or [*]`,
      );
    }
    steps.push(next.step);
    at += next.length;
  }
  return { root: root[1] as Expression['root'], steps };
}

/** What the completed step offers its compensation. */
export interface StepOutcome {
  readonly args: unknown;
  readonly result: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(value: unknown, steps: readonly PathStep[], text: string, done: string): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return value;
  const missing = (what: string): TemplateError => new TemplateError(text, `"${text}" names nothing: ${done} ${what}`);
  if (step.kind === 'each') {
    if (!Array.isArray(value)) throw missing('is not an array');
    return value.map((item: unknown, index) => walk(item, rest, text, `${done}[${index}]`));
  }
  if (step.kind === 'index') {
    if (!Array.isArray(value)) throw missing('is not an array');
    if (step.index >= value.length) throw missing(`has no item ${step.index}`);
    return walk(value[step.index], rest, text, `${done}[${step.index}]`);
  }
  if (!isObject(value) || !Object.hasOwn(value, step.key)) throw missing(`has no "${step.key}"`);
  return walk(value[step.key], rest, text, `${done}.${step.key}`);
}

/** The value `text` names in `outcome`; throws a `TemplateError` naming the expression when a step is missing. */
export function evaluateExpression(text: string, outcome: StepOutcome): unknown {
  const expression = parseExpression(text);
  const start = expression.root === 'args' ? outcome.args : outcome.result;
  return walk(start, expression.steps, text, `$${expression.root}`);
}

function fill(value: unknown, outcome: StepOutcome): unknown {
  if (isExpression(value)) return evaluateExpression(value, outcome);
  if (typeof value === 'string' && value.startsWith('$$')) return value.slice(1);
  if (Array.isArray(value)) return value.map((item: unknown) => fill(item, outcome));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, outcome)]));
  return value;
}

/**
 * The arguments of a compensation call: `template` with every expression
 * replaced by the value it names in `outcome`, everything else as it is
 * (inside objects and arrays too).
 */
export function compensationArguments(
  template: Readonly<Record<string, unknown>>,
  outcome: StepOutcome,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fill(value, outcome)]));
}

/**
 * The first expression in `template` that does not parse, with where it is
 * (keys and indexes below the template), or `undefined` when all do.
 */
export function firstBadExpression(
  value: unknown,
  path: readonly (string | number)[] = [],
): { readonly path: readonly (string | number)[]; readonly error: TemplateError } | undefined {
  if (isExpression(value)) {
    try {
      parseExpression(value);
      return undefined;
    } catch (error) {
      if (TemplateError.isInstance(error)) return { path, error };
      throw error;
    }
  }
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item: unknown, index) => [index, item])
    : isObject(value)
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    const found = firstBadExpression(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
