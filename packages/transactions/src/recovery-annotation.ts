/**
 * The draft official shape of a compensation: SEP-3172 "Recovery Metadata for
 * MCP ToolAnnotations" (PR head c66570f6, 2026-07-30), `annotations.recovery`
 * naming the tool that undoes this one and binding its arguments with OpenAPI
 * runtime expressions. Reading, binding and writing it here is pure.
 */
import { brandError, isBrandedError } from '@ext/core/kit';
import { ExtensionError, type ToolResult } from '@ext/core';
import { Type, type Static } from 'typebox';
import { validatorOf } from './input.js';

/** The annotation's key in `Tool.annotations`. */
export const RECOVERY_ANNOTATION = 'recovery';

/** The one strategy the draft defines; others are reserved for later drafts. */
export const COMPENSATION_STRATEGY = 'compensation';

/** `Tool.annotations.recovery` as SEP-3172 §4.1 defines it; unknown fields are allowed, as for every annotation. */
export const ToolRecovery = Type.Object({
  strategy: Type.Literal(COMPENSATION_STRATEGY),
  compensatingOperation: Type.Object({
    operationId: Type.String({ minLength: 1 }),
    parameters: Type.Record(Type.String(), Type.String()),
  }),
});
export type ToolRecovery = Static<typeof ToolRecovery>;

/** Where a runtime expression reads from: the step's result or its arguments. */
type Source = 'response' | 'request';

interface Binding {
  readonly source: Source;
  /** RFC 6901 reference tokens, decoded; empty for the whole body. */
  readonly tokens: readonly string[];
}

// `$response.body` and `$request.body`, optionally followed by a JSON Pointer fragment (OpenAPI 3.0 §Runtime Expressions).
const EXPRESSION = /^\$(response|request)\.body(?:#(\/.*)?)?$/;

/** A binding that cannot be honoured: the expression reads what an MCP call does not have, or is malformed. */
function parseBinding(text: string): Binding | string {
  const match = EXPRESSION.exec(text);
  if (match === null) {
    return `"${text}" reads nothing an MCP tool call has: only $response.body#/… (the result's structuredContent) and $request.body#/… (the arguments) are bound`;
  }
  let tokens: string[];
  try {
    tokens = (match[2] ?? '')
      .split('/')
      .slice(1)
      .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'));
  } catch {
    return `"${text}" has a malformed JSON Pointer`;
  }
  return { source: match[1] as Source, tokens };
}

/** Whether `value` is a runtime expression; any other string is a constant, passed as written. */
function isExpression(value: string): boolean {
  return value.startsWith('$');
}

/** What a tool's annotations declare: nothing, a usable compensation, or a declaration at fault. */
export type RecoveryReading =
  | { readonly kind: 'none' }
  | { readonly kind: 'declared'; readonly recovery: ToolRecovery }
  | { readonly kind: 'invalid'; readonly pointer: string; readonly message: string };

/**
 * Reads `annotations.recovery`. A strategy other than `compensation` is a
 * later draft's and declares no compensation here; a `compensation` that
 * does not validate, or binds an argument no MCP call can supply, is invalid.
 */
export function readRecovery(annotations: unknown): RecoveryReading {
  if (typeof annotations !== 'object' || annotations === null) return { kind: 'none' };
  const raw = (annotations as Record<string, unknown>)[RECOVERY_ANNOTATION];
  if (raw === undefined) return { kind: 'none' };
  if (typeof raw === 'object' && raw !== null) {
    const strategy = (raw as Record<string, unknown>).strategy;
    if (typeof strategy === 'string' && strategy !== COMPENSATION_STRATEGY) return { kind: 'none' };
  }
  const validator = validatorOf(ToolRecovery);
  if (!validator.Check(raw)) {
    const first = validator.Errors(raw)[0];
    return {
      kind: 'invalid',
      pointer: `/${RECOVERY_ANNOTATION}${first?.instancePath ?? ''}`,
      message: first?.message ?? 'is invalid',
    };
  }
  const fault = bindingFault(raw.compensatingOperation.parameters);
  if (fault !== undefined) {
    return {
      kind: 'invalid',
      pointer: `/${RECOVERY_ANNOTATION}/compensatingOperation/parameters/${fault.name}`,
      message: fault.message,
    };
  }
  return { kind: 'declared', recovery: raw };
}

/** The first parameter whose expression cannot be bound, or `undefined`. */
export function bindingFault(
  parameters: Readonly<Record<string, string>>,
): { readonly name: string; readonly message: string } | undefined {
  for (const [name, value] of Object.entries(parameters)) {
    if (!isExpression(value)) continue;
    const parsed = parseBinding(value);
    if (typeof parsed === 'string') return { name, message: parsed };
  }
  return undefined;
}

function resolve(binding: Binding, text: string, args: Record<string, unknown>, result: ToolResult): unknown {
  let value: unknown = binding.source === 'request' ? args : result.structuredContent;
  const where = binding.source === 'request' ? 'the arguments' : "the result's structuredContent";
  if (value === undefined) throw new RecoveryBindingError(text, `${where} is absent`);
  for (const token of binding.tokens) {
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < value.length) {
      value = value[Number(token)];
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      throw new RecoveryBindingError(text, `${where} has nothing at "${text}"`);
    }
  }
  return value;
}

/** A runtime expression the step's result or arguments cannot satisfy. */
export class RecoveryBindingError extends Error {
  static readonly brand: string = 'RecoveryBindingError';
  readonly expression: string;

  constructor(expression: string, message: string) {
    super(message);
    this.name = 'RecoveryBindingError';
    this.expression = expression;
    brandError(this, RecoveryBindingError.brand);
  }

  /** Whether `value` is one, across copies of this package (a brand, not the prototype chain). */
  static isInstance(value: unknown): value is RecoveryBindingError {
    return isBrandedError(value, RecoveryBindingError.brand);
  }
}

/**
 * The compensating call's arguments: each expression resolved against the
 * step (`$response.body` is the result's `structuredContent`, `$request.body`
 * its arguments), each constant as written. Throws `RecoveryBindingError`
 * when one cannot be resolved: the draft (§4.2) forbids calling with partial
 * or default arguments.
 */
export function bindRecoveryParameters(
  parameters: Readonly<Record<string, string>>,
  args: Record<string, unknown>,
  result: ToolResult,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parameters)) {
    if (!isExpression(value)) {
      out[name] = value;
      continue;
    }
    const binding = parseBinding(value);
    if (typeof binding === 'string') throw new RecoveryBindingError(value, binding);
    out[name] = resolve(binding, value, args, result);
  }
  return out;
}

/** `annotations.recovery` for a compensation declared our way with the undo tool and its bindings. */
export function recoveryAnnotation(operationId: string, parameters: Readonly<Record<string, string>>): ToolRecovery {
  return { strategy: COMPENSATION_STRATEGY, compensatingOperation: { operationId, parameters: { ...parameters } } };
}

/** The step's compensating call could not be bound when the step ran (SEP-3172 §4.2). */
export function recoveryUnavailable(tool: string, operationId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'COMPENSATION_UNAVAILABLE',
    `The compensation of ${tool} (${operationId}) could not be bound from the step's result, so it was not called`,
    { userActionable: true, suggestion: `Undo the effect of ${tool} by hand.` },
  );
}
