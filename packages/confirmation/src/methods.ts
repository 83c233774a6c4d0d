/**
 * The extension's JSON-RPC methods: `<id>/approve` (several tokens in one
 * audited batch) and `<id>/grant` (N calls of one tool within T seconds).
 */
import { randomUUID } from 'node:crypto';
import { ExtensionError, type MethodHandler } from '@ext/core';
import { lazyValidator, type CompiledValidator } from '@ext/core/kit';
import type { TSchema, Static } from 'typebox';
import { decide } from './decisions.js';
import type { ConfirmationConfig } from './options.js';
import { refusalError } from './refusals.js';
import { ApproveParamsSchema, GrantParamsSchema, type ApproveResult } from './schema.js';
import { approveToken, issueGrant } from './token-store.js';
import type { ToolGates } from './tool-gates.js';

const approveParams = lazyValidator(ApproveParamsSchema);
const grantParams = lazyValidator(GrantParamsSchema);

/** `params` typed by `validator`, or the `INVALID_INPUT` error naming where the first violation is. */
function checkParams<S extends TSchema>(validator: CompiledValidator<S>, params: unknown): Static<S> {
  if (validator.Check(params)) return params;
  const [first] = validator.Errors(params);
  const path = first?.instancePath ?? '';
  throw new ExtensionError('invalid_input', 'INVALID_INPUT', `params${path} ${first?.message ?? 'is invalid'}`, {
    details: { pointer: path },
  });
}

/** `<id>/approve`: approves each of the caller's pending tokens it can, and says why not for the others. */
function approveMethod(config: ConfirmationConfig): MethodHandler {
  return async (raw, ctx) => {
    const params = checkParams(approveParams(), raw);
    const tokens = params.confirmation_tokens;
    if (tokens.length > config.maxBatchSize) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_BATCH_TOO_LARGE',
        `At most ${config.maxBatchSize} tokens can be approved at once`,
        {
          suggestion: 'Split the approval into smaller batches.',
          details: { pointer: '/confirmation_tokens', max_batch_size: config.maxBatchSize },
        },
      );
    }
    const batchId = randomUUID();
    const result: ApproveResult = { batch_id: batchId, approved: [], rejected: [] };
    for (const token of new Set(tokens)) {
      const refusal = await approveToken(config, ctx, token, batchId);
      if (refusal === undefined) {
        result.approved.push(token);
        continue;
      }
      const error = refusalError(refusal);
      result.rejected.push({ confirmation_token: token, code: error.code, message: error.message });
    }
    const scope = { config, store: ctx.store, principal: ctx.principal };
    return decide(scope, { kind: 'batch_approved', batchId, count: result.approved.length }, { run: () => result });
  };
}

/** `<id>/grant`: a bounded, time-boxed approval of one gated tool, within the server's limits. */
function grantMethod(config: ConfirmationConfig, gates: ToolGates): MethodHandler {
  return async (raw, ctx) => {
    const limits = config.grants;
    if (limits === undefined) {
      throw new ExtensionError(
        'permanent',
        'CONFIRMATION_GRANTS_DISABLED',
        'This server does not offer approval grants',
        {
          suggestion: 'Confirm each call on its own, or approve several tokens at once.',
        },
      );
    }
    const params = checkParams(grantParams(), raw);
    if (params.max_calls > limits.maxCalls || params.duration_seconds > limits.maxDurationSeconds) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_GRANT_LIMIT',
        `A grant covers at most ${limits.maxCalls} calls within ${limits.maxDurationSeconds} seconds`,
        {
          suggestion: 'Ask for fewer calls or a shorter time.',
          details: { max_calls: limits.maxCalls, max_duration_seconds: limits.maxDurationSeconds },
        },
      );
    }
    if (!gates.isGated(params.tool)) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_GRANT_INVALID',
        `"${params.tool}" is not a tool that requires confirmation`,
        {
          details: { pointer: '/tool' },
        },
      );
    }
    return issueGrant(config, ctx, params, gates.digestOf(params.tool));
  };
}

/** The methods, by name under the identifier. `grant` is always served, so a client asking a server without grants gets a clear error, not "method not found". */
export function confirmationMethods(config: ConfirmationConfig, gates: ToolGates): Record<string, MethodHandler> {
  return { approve: approveMethod(config), grant: grantMethod(config, gates) };
}
