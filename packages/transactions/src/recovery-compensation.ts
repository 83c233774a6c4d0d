/**
 * A compensation that makes the call a SEP-3172 `recovery` annotation names:
 * what the server runs for a tool declared that way, and what a gateway runs
 * for an upstream's tool. How the call is made is the caller's.
 */
import { ExtensionError } from '@ext/core';
import type { CompensationContext, CompensationDefinition } from './compensation.js';
import { bindRecoveryParameters, recoveryUnavailable, type ToolRecovery } from './recovery-annotation.js';

/** What the compensating call answered: a tool error result (`isError`) fails the compensation. */
export interface CompensatingAnswer {
  readonly isError?: unknown;
  readonly content?: unknown;
}

/** Makes the compensating call: `tool` with `args`, for the step `ctx` describes. */
export type CompensatingCall = (
  tool: string,
  args: Record<string, unknown>,
  ctx: CompensationContext,
) => Promise<CompensatingAnswer>;

export interface RecoveryCompensationOptions {
  /** What a failed compensation reports of the tool's answer. Default: its content as JSON. */
  readonly failure?: ((answer: CompensatingAnswer) => string) | undefined;
}

/**
 * The compensation `recovery` declares for `tool`: its arguments bound when
 * the step ran (shown to the client as `compensation.parameters`), then
 * `operationId` called with them on rollback. A step whose bindings did not
 * resolve has no parameters, and its compensation fails with
 * `COMPENSATION_UNAVAILABLE` instead of calling with partial arguments.
 */
export function recoveryCompensation(
  tool: string,
  recovery: ToolRecovery,
  call: CompensatingCall,
  options: RecoveryCompensationOptions = {},
): CompensationDefinition {
  const { operationId, parameters } = recovery.compensatingOperation;
  return {
    tool: operationId,
    description: `Undo with ${operationId}`,
    parameters: (args, result) => bindRecoveryParameters(parameters, args, result),
    compensate: async (_args, _result, ctx) => {
      if (ctx.parameters === undefined) throw recoveryUnavailable(tool, operationId);
      const answer = await call(operationId, { ...ctx.parameters }, ctx);
      if (answer.isError !== true) return;
      const said = options.failure?.(answer) ?? JSON.stringify(answer.content ?? []);
      throw new ExtensionError('transient', 'COMPENSATION_FAILED', `${operationId} failed: ${said}`, {
        retryAfterSeconds: 1,
        suggestion: 'Roll the transaction back again to retry the failed compensations.',
      });
    },
  };
}
