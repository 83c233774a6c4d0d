/**
 * Path (a): the server asks the person itself, by elicitation on the legacy
 * era or by an `input_required` result on 2026-07-28, and only an explicit
 * "yes" to this very question lets the call run (CONF-6, CONF-6a).
 */
import {
  elicitationAnswer,
  inputRequiredResult,
  ExtensionError,
  type CallContext,
  type ElicitationRequest,
  type ElicitationResponse,
  type InputRound,
  type ToolCall,
  type ToolResult,
} from '@ext/core';
import { audit } from './audit.js';
import { callHash, CONFIRM_INPUT_KEY, confirmationElicitation, type ToolGate } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import { answersQuestion, parseQuestionRecord, questionKey, recordJson, type QuestionRecord } from './records.js';
import { newSecret } from './token-store.js';

/** Longer echoed states are not ours (ours are 43 characters): refused before any hashing. */
const MAX_REQUEST_STATE_LENGTH = 256;

/** Records a person's in-band answer; anything but an explicit "yes" refuses the call (CONF-6). */
async function settleAnswer(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  answer: ElicitationResponse,
): Promise<void> {
  const accepted = answer.action === 'accept' && answer.content?.confirm === true;
  await audit(config, ctx.store, {
    event: accepted ? 'elicitation_accepted' : 'elicitation_declined',
    principal: ctx.principal,
    tool: call.name,
    risk_level: gate.riskLevel,
  });
  if (!accepted) {
    throw new ExtensionError(
      'permanent',
      'CONFIRMATION_DECLINED',
      `The user did not approve "${call.name}"; nothing was done`,
      {
        userActionable: true,
        suggestion: 'Do not retry unless the user asks for it again.',
        details: { tool: call.name, action: answer.action },
      },
    );
  }
}

/** Asks by elicitation (legacy era); returns once the person said yes, else throws. */
export async function confirmByElicitation(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
  elicit: (request: ElicitationRequest) => Promise<ElicitationResponse>,
): Promise<void> {
  await settleAnswer(
    config,
    call,
    ctx,
    gate,
    await elicit(confirmationElicitation(call.name, message, gate.riskLevel)),
  );
}

/**
 * Asks through `input_required` (2026-07-28), with a fresh unguessable
 * `requestState` that names this question in the store, so that only an
 * answer to it, for this caller, tool and arguments, counts (CONF-6a).
 */
async function askInBand(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
): Promise<ToolResult> {
  const requestState = newSecret();
  const record: QuestionRecord = {
    v: 1,
    tool: call.name,
    args_hash: callHash(ctx.tool, call.arguments),
    principal: ctx.principal,
    expires_at: config.now() + config.tokenTtlMs,
  };
  await ctx.store.set(questionKey(config.keyPrefix, requestState), recordJson(record), { ttlMs: config.tokenTtlMs });
  return inputRequiredResult(
    { [CONFIRM_INPUT_KEY]: confirmationElicitation(call.name, message, gate.riskLevel) },
    { requestState },
  );
}

/** Whether the retry echoes the state of an open question asked for this very call; takes the question, so it is answered once. */
async function takeQuestion(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  requestState: string | undefined,
): Promise<boolean> {
  if (requestState === undefined || requestState.length > MAX_REQUEST_STATE_LENGTH) return false;
  const key = questionKey(config.keyPrefix, requestState);
  const record = parseQuestionRecord(await ctx.store.get(key));
  const matches = answersQuestion(record, {
    principal: ctx.principal,
    tool: call.name,
    argsHash: callHash(ctx.tool, call.arguments),
    now: config.now(),
  });
  // Of two retries echoing the same state, only the one whose delete removes the question goes on.
  return matches && (await ctx.store.delete(key));
}

/**
 * Asks by answering `input_required` (2026-07-28); the client retries the
 * same call with the person's answer (CONF-6). Returns the question to send,
 * or `undefined` once the person said yes to it; throws on a "no".
 */
export async function confirmByInputRound(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
  round: InputRound,
): Promise<ToolResult | undefined> {
  const answer = elicitationAnswer(round, CONFIRM_INPUT_KEY);
  if (answer === undefined) return askInBand(config, call, ctx, gate, message);
  if (!(await takeQuestion(config, call, ctx, round.requestState))) {
    // An answer to no question of ours (unasked, replayed, expired, or for other arguments) approves nothing: ask.
    await audit(config, ctx.store, {
      event: 'elicitation_unasked',
      principal: ctx.principal,
      tool: call.name,
      risk_level: gate.riskLevel,
    });
    return askInBand(config, call, ctx, gate, message);
  }
  await settleAnswer(config, call, ctx, gate, answer);
  return undefined;
}
