/** Reading `<id>/recommend` params: the request, or the field that is wrong. Pure. */
import { firstViolation, lazyValidator, type Parsed } from '@ext/core/kit';
import { MAX_CAPABILITY_LENGTH, RecommendRequestSchema, type RecommendRequest } from './schema.js';

const requestValidator = lazyValidator(RecommendRequestSchema);

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
  const validator = requestValidator();
  const body: Record<string, unknown> =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? { ...(params as Record<string, unknown>) }
      : {};
  delete body._meta;
  if (validator.Check(body)) {
    const value: RecommendRequest = { capability_needed: body.capability_needed };
    if (body.max_results !== undefined) value.max_results = body.max_results;
    if (body.min_confidence !== undefined) value.min_confidence = body.min_confidence;
    return { ok: true, value };
  }
  const { pointer } = firstViolation(validator.Errors(body));
  // The request's own top-level field (the first segment), which is what PROBLEMS names.
  const field = pointer.split('/').filter(Boolean)[0] ?? 'capability_needed';
  // `field` comes from the request's own keys: only PROBLEMS' own entries name a problem.
  const problem = Object.hasOwn(PROBLEMS, field) ? PROBLEMS[field] : undefined;
  return { ok: false, field, pointer, message: `Invalid recommend request: ${field} ${problem ?? 'is malformed'}` };
}
