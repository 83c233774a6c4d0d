/**
 * Path (a): the server asks the person itself, by elicitation on the legacy
 * era or by an `input_required` result on 2026-07-28, and only an explicit
 * "yes" to this very question lets the call run (CONF-6, CONF-6a).
 * Identical calls in flight at once share one question (CONF-32).
 */
import { elicitationAnswer, inputRequiredResult } from '@ext/core/kit';
import {
  type CallContext,
  type ElicitationRequest,
  type ElicitationResponse,
  type InputRound,
  type ToolCall,
  type ToolResult,
} from '@ext/core';
import { decide, type GatedCall } from './decisions.js';
import { callHash, CONFIRM_INPUT_KEY, confirmationElicitation } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import { answersQuestion, parseQuestionRecord, questionKey, recordJson, type QuestionRecord } from './records.js';
import {
  awaitOutcome,
  sharedQuestionKey,
  sharedResult,
  type OpenQuestion,
  type SharedQuestions,
} from './shared-questions.js';
import { newSecret } from './token-store.js';

/** Longer echoed states are not ours (ours are 43 characters): refused before any hashing. */
const MAX_REQUEST_STATE_LENGTH = 256;

/** A gated call on its way in-band, with what it needs to ask, to run, and to share its question (CONF-32). */
export interface InBandCall extends GatedCall {
  readonly questions: SharedQuestions;
  readonly message: string;
  /** Runs the call (the stages inside this one, then the tool). */
  readonly next: () => Promise<ToolResult>;
}

/** What the 2026-07-28 path answers with: the question to send, or the result of the call that ran. */
export type InputRoundOutcome = { readonly asked: ToolResult } | { readonly ran: ToolResult };

type Joined = { readonly shared: ToolResult } | { readonly asks: OpenQuestion };

type FreshQuestion = () => Pick<OpenQuestion, 'id' | 'expiresAt'>;

/**
 * Waits for the question an identical call already asked (CONF-32), and
 * answers as that call came out. When nobody answered it, the call follows
 * the next question asked, or asks itself.
 */
async function follow(inBand: InBandCall, key: string, fresh: FreshQuestion, first: OpenQuestion): Promise<Joined> {
  let question = first;
  for (;;) {
    const outcome = await awaitOutcome(question, inBand.ctx.signal);
    if (outcome.kind !== 'unanswered') return { shared: sharedResult(outcome) };
    const joined = inBand.questions.join(key, fresh);
    if (joined.opened) return { asks: joined.question };
    question = joined.question;
  }
}

/**
 * Joins the question open for this very call (CONF-32): what came of it, or,
 * when none is open, the question this call opened and now asks. A call that
 * shares a question is audited once, however many it then waits on in turn.
 */
async function joinQuestion(inBand: InBandCall, key: string, fresh: FreshQuestion): Promise<Joined> {
  const joined = inBand.questions.join(key, fresh);
  if (joined.opened) return { asks: joined.question };
  return decide(inBand, { kind: 'elicitation_shared' }, { run: () => follow(inBand, key, fresh, joined.question) });
}

/** Runs the call on the person's answer (only an explicit yes, CONF-6), and tells the identical calls waiting what came of it. */
async function runOnAnswer(
  inBand: InBandCall,
  key: string,
  id: string | undefined,
  answer: ElicitationResponse,
): Promise<ToolResult> {
  const { questions } = inBand;
  try {
    const result =
      answer.action === 'accept' && answer.content?.confirm === true
        ? await decide(inBand, { kind: 'elicitation_accepted' }, { run: inBand.next })
        : await decide(inBand, { kind: 'elicitation_declined', action: answer.action });
    questions.settle(key, id, { kind: 'ran', result });
    return result;
  } catch (error) {
    questions.settle(key, id, { kind: 'failed', error });
    throw error;
  }
}

/**
 * Asks by elicitation (legacy era) and runs the call on a yes; a "no"
 * throws. An identical call already asking is followed instead (CONF-32).
 */
export async function runByElicitation(
  inBand: InBandCall,
  elicit: (request: ElicitationRequest) => Promise<ElicitationResponse>,
): Promise<ToolResult> {
  const key = sharedQuestionKey(inBand.call, inBand.ctx);
  // The asker waits for the answer itself, so its question never lapses before it is settled.
  const joined = await joinQuestion(inBand, key, () => ({ id: newSecret(), expiresAt: undefined }));
  if ('shared' in joined) return joined.shared;
  const { id } = joined.asks;
  let answer: ElicitationResponse;
  try {
    answer = await elicit(confirmationElicitation(inBand.call.name, inBand.message, inBand.gate.riskLevel));
  } catch (error) {
    // Nobody answered (the request was cancelled, the client failed): a call still waiting asks again.
    inBand.questions.settle(key, id, { kind: 'unanswered' });
    throw error;
  }
  return runOnAnswer(inBand, key, id, answer);
}

/**
 * Asks through `input_required` (2026-07-28), with a fresh unguessable
 * `requestState` that names this question in the store, so that only an
 * answer to it, for this caller, tool and arguments, counts (CONF-6a). The
 * question stays open for identical calls until answered or expired.
 */
async function askInBand(inBand: InBandCall, key: string, question: OpenQuestion): Promise<ToolResult> {
  const { config, call, ctx, gate, message } = inBand;
  const requestState = question.id;
  const record: QuestionRecord = {
    v: 1,
    tool: call.name,
    args_hash: callHash(ctx.tool, call.arguments),
    principal: ctx.principal,
    expires_at: question.expiresAt ?? config.now() + config.tokenTtlMs,
  };
  try {
    await ctx.store.set(questionKey(config.keyPrefix, requestState), recordJson(record), {
      ttlMs: config.tokenTtlMs,
    });
  } catch (error) {
    inBand.questions.settle(key, requestState, { kind: 'unanswered' });
    throw error;
  }
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
 * same call with the person's answer (CONF-6), and that retry runs the call
 * on a yes; a "no" throws. Identical calls arriving while the question is
 * open wait for what came of it (CONF-32).
 */
export async function runByInputRound(inBand: InBandCall, round: InputRound): Promise<InputRoundOutcome> {
  const { config, call, ctx } = inBand;
  const key = sharedQuestionKey(call, ctx);
  const ask = async (): Promise<InputRoundOutcome> => {
    const joined = await joinQuestion(inBand, key, () => ({
      id: newSecret(),
      expiresAt: config.now() + config.tokenTtlMs,
    }));
    if ('shared' in joined) return { ran: joined.shared };
    return { asked: await askInBand(inBand, key, joined.asks) };
  };
  const answer = elicitationAnswer(round, CONFIRM_INPUT_KEY);
  if (answer === undefined) return ask();
  if (await takeQuestion(config, call, ctx, round.requestState))
    return { ran: await runOnAnswer(inBand, key, round.requestState, answer) };
  // An answer to no question of ours (unasked, replayed, expired, or for other arguments) approves nothing: ask.
  return decide(inBand, { kind: 'elicitation_unasked' }, { run: ask });
}
