/**
 * The wire shape of SEP-3313 "Structured Tool-Failure Classification"
 * (`ToolFailure` under `_meta["io.modelcontextprotocol/toolFailure"]` of a
 * failed `CallToolResult`), checked on its own terms: the kit reads what the
 * server sent and trusts none of the server's code. The errors suite uses it
 * (packages/errors/SPEC.md, ERR-31..ERR-35).
 */
import { isRecord } from '@ext/core/kit';
import { describe } from '../assert.js';

/** The `_meta` key the draft defines. */
export const TOOL_FAILURE_KEY = 'io.modelcontextprotocol/toolFailure';

const CLASSES: readonly string[] = ['capability', 'reliability', 'governance'];

/** The class each of our categories belongs to (packages/errors/SPEC.md, ERR-32). */
export const CLASS_OF_CATEGORY: Readonly<Record<string, string>> = {
  transient: 'reliability',
  rate_limited: 'reliability',
  invalid_input: 'capability',
  permanent: 'capability',
  auth_required: 'governance',
};

function optional(value: Record<string, unknown>, field: string, type: 'boolean' | 'number' | 'string'): string[] {
  const present = value[field];
  if (present === undefined || typeof present === type) return [];
  return [`"${field}" must be a ${type}, got ${describe(present)}`];
}

/**
 * What is wrong with `value` as the draft's `ToolFailure`, one line per
 * problem; empty when it conforms. Beyond the types: `correlationId` is
 * required and must not be empty (it is what an operator searches the logs
 * for), `retryable` must be absent or false outside `reliability`, and
 * `retryNotBefore` is meaningful only with `retryable: true`.
 */
export function toolFailureViolations(value: unknown): string[] {
  if (!isRecord(value)) return [`must be a JSON object, got ${describe(value)}`];
  const problems: string[] = [];
  if (typeof value.class !== 'string' || !CLASSES.includes(value.class))
    problems.push(`"class" must be one of ${CLASSES.join(', ')}, got ${describe(value.class)}`);
  if (typeof value.code !== 'string' || value.code === '')
    problems.push(`"code" must be a non-empty string, got ${describe(value.code)}`);
  if (typeof value.correlationId !== 'string' || value.correlationId === '')
    problems.push(`"correlationId" is required and must be a non-empty string, got ${describe(value.correlationId)}`);
  problems.push(...optional(value, 'retryable', 'boolean'), ...optional(value, 'agentGuidance', 'string'));
  problems.push(...optional(value, 'retryNotBefore', 'number'));
  if (value.retryable === true && value.class !== 'reliability')
    problems.push(`"retryable" must be absent or false for class ${describe(value.class)}`);
  if (value.retryNotBefore !== undefined && value.retryable !== true)
    problems.push('"retryNotBefore" is sent without "retryable": true');
  return problems;
}
