/**
 * What every part of the console shares: reading JSON answers, the page's
 * elements, the result panel, the dialogs that ask the person, the progress
 * bar, and the extension identifiers the console speaks.
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';

const NS = 'io.github.mcp-ext';
export const ERRORS = `${NS}/errors`;
export const CONFIRMATION = `${NS}/confirmation`;
export const NEGOTIATION = `${NS}/content-negotiation`;
export const MANIFEST = `${NS}/manifest`;
export const EVENTS = `${NS}/events`;

export type Json = Record<string, unknown>;

/** What the result panel shows of a call: the answer, and what it means. */
export interface CallOutcome {
  readonly result: Json;
  readonly explanation: string;
}

export function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** An extension's entry in a result's `_meta`. */
export function metaOf(result: Json, id: string): Json | undefined {
  return record(record(result._meta)?.[id]);
}

/** Accepts any object result of an extension method. */
export const anyObject: StandardSchemaV1<Json> = {
  '~standard': {
    version: 1,
    vendor: 'tracker-console',
    validate: (value) => (record(value) ? { value: value as Json } : { issues: [{ message: 'expected an object' }] }),
  },
};

export function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

export function show(outcome: CallOutcome): void {
  element('explanation').textContent = outcome.explanation;
  element('result').textContent = JSON.stringify(outcome.result, null, 2);
}

/** Opens `dialog` and resolves once it closes: true only when closed with the button of value `yes`. */
export function answered(dialog: HTMLDialogElement, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        resolve(dialog.returnValue === yes);
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** Resolves when the person answers the dialog: true only on an explicit approval. */
export function askPerson(message: string, risk: string): Promise<boolean> {
  const dialog = element('confirm') as HTMLDialogElement;
  element('confirm-message').textContent = message;
  const badge = element('confirm-risk');
  badge.textContent = risk;
  badge.className = `risk ${risk}`;
  return answered(dialog, 'approve');
}

export function progressBar(): {
  update: (progress: number, total: number | undefined, message: string | undefined) => void;
  done: () => void;
} {
  const box = element('progress-box');
  const bar = element('progress') as HTMLProgressElement;
  const label = element('progress-text');
  box.hidden = false;
  bar.value = 0;
  label.textContent = '';
  return {
    update(progress, total, message) {
      bar.max = total ?? 100;
      bar.value = progress;
      label.textContent = `${String(Math.round((progress / (total ?? 100)) * 100))}%${message ? `: ${message}` : ''}`;
    },
    done() {
      label.textContent = `${label.textContent} (done)`;
    },
  };
}
