/**
 * The in-band questions in flight on this server instance, one per caller,
 * tool and canonical arguments (CONF-32): identical calls that arrive while
 * one is open wait for what came of it instead of asking the person again.
 */
import type { CallContext, ToolCall, ToolResult } from '@ext/core';
import { callHash } from './logic.js';

/** What came of a shared question: the call ran, it failed (a "no", or the tool threw), or nobody answered. */
export type QuestionOutcome =
  | { readonly kind: 'ran'; readonly result: ToolResult }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'unanswered' };

/** One question in flight. */
export interface OpenQuestion {
  /** Names this question among those asked for one call over time (an `input_required` state, or a fresh id). */
  readonly id: string;
  /** Server clock (ms) after which nobody can answer it any more; `undefined` while its asker waits for the answer itself. */
  readonly expiresAt: number | undefined;
  readonly outcome: Promise<QuestionOutcome>;
}

interface Entry {
  readonly question: OpenQuestion;
  readonly settle: (outcome: QuestionOutcome) => void;
  /** Settles the question as unanswered when it lapses, so one nobody answers is not kept. */
  readonly lapse: NodeJS.Timeout | undefined;
}

/** Which calls share a question: the caller and the call's digest (tool definition and canonical arguments). */
export function sharedQuestionKey(call: ToolCall, ctx: CallContext): string {
  return `${ctx.principal}\n${callHash(ctx.tool, call.arguments)}`;
}

export class SharedQuestions {
  readonly #open = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * The question open for `key` to follow, or, when none is (or the open
   * one lapsed), a new one made of `fresh()` that the caller now asks and
   * must settle. Synchronous, so of identical calls arriving together
   * exactly one opens the question.
   */
  join(
    key: string,
    fresh: () => Pick<OpenQuestion, 'id' | 'expiresAt'>,
  ): { readonly opened: boolean; readonly question: OpenQuestion } {
    const entry = this.#open.get(key);
    if (entry !== undefined) {
      const { expiresAt } = entry.question;
      if (expiresAt === undefined || this.#now() < expiresAt) return { opened: false, question: entry.question };
      // Nobody can answer it any more: whoever still waits on it is told so.
      this.settle(key, entry.question.id, { kind: 'unanswered' });
    }
    let settle: (outcome: QuestionOutcome) => void = () => undefined;
    const outcome = new Promise<QuestionOutcome>((resolve) => {
      settle = resolve;
    });
    const question: OpenQuestion = { ...fresh(), outcome };
    const { id, expiresAt } = question;
    const lapse =
      expiresAt === undefined
        ? undefined
        : setTimeout(
            () => {
              this.settle(key, id, { kind: 'unanswered' });
            },
            Math.max(0, expiresAt - this.#now()),
          );
    // A lapse nobody waits for must not keep the process alive.
    lapse?.unref();
    this.#open.set(key, { question, settle, lapse });
    return { opened: true, question };
  }

  /** Settles the question open for `key` if it is the one named `id`; a question asked elsewhere is none of ours. */
  settle(key: string, id: string | undefined, outcome: QuestionOutcome): void {
    const entry = this.#open.get(key);
    if (entry === undefined || entry.question.id !== id) return;
    this.#open.delete(key);
    clearTimeout(entry.lapse);
    entry.settle(outcome);
  }
}

/** What came of `question`; rejects when the waiting call is cancelled (its client no longer waits for it). */
export function awaitOutcome(question: OpenQuestion, signal: AbortSignal): Promise<QuestionOutcome> {
  return new Promise<QuestionOutcome>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled'));
    };
    void question.outcome.then((outcome) => {
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The result a call sharing `outcome` answers with: the run's result, or the run's failure thrown again. */
export function sharedResult(outcome: Exclude<QuestionOutcome, { kind: 'unanswered' }>): ToolResult {
  if (outcome.kind === 'ran') return outcome.result;
  throw outcome.error;
}
