import { Compile } from 'typebox/compile';
import { MAX_CAPABILITY_LENGTH, RecommendRequestSchema, type RecommendRequest } from './schema.js';

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly field: string; readonly pointer: string; readonly message: string };

let requestValidator: ReturnType<typeof Compile<typeof RecommendRequestSchema>> | undefined;

const PROBLEMS: Record<string, string> = {
  capability_needed: `must be a non-blank string of at most ${MAX_CAPABILITY_LENGTH} characters`,
  max_results: 'must be a positive integer',
  min_confidence: 'must be "high", "medium" or "low"',
};

/**
 * Validates `<id>/recommend` params (the protocol's `_meta` left aside,
 * unknown fields ignored). Never throws.
 */
export function parseRecommendRequest(params: unknown): Parsed<RecommendRequest> {
  requestValidator ??= Compile(RecommendRequestSchema);
  const body: Record<string, unknown> =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? { ...(params as Record<string, unknown>) }
      : {};
  delete body._meta;
  if (requestValidator.Check(body)) {
    const value: RecommendRequest = { capability_needed: body.capability_needed };
    if (body.max_results !== undefined) value.max_results = body.max_results;
    if (body.min_confidence !== undefined) value.min_confidence = body.min_confidence;
    return { ok: true, value };
  }
  const first = [...requestValidator.Errors(body)][0];
  let pointer = first?.instancePath ?? '';
  if (first?.keyword === 'required') {
    const missing = (first.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
    if (missing !== undefined) pointer = `${pointer}/${missing}`;
  }
  const field = pointer.split('/').filter(Boolean)[0] ?? 'capability_needed';
  // `field` comes from the request's own keys: only PROBLEMS' own entries name a problem.
  const problem = Object.hasOwn(PROBLEMS, field) ? PROBLEMS[field] : undefined;
  return { ok: false, field, pointer, message: `Invalid recommend request: ${field} ${problem ?? 'is malformed'}` };
}
