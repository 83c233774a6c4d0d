/** How the tour prints what it shows (sections, aligned rows, ok lines) and checks each step's outcome. */
import { styles } from './explain.js';

const LABEL_WIDTH = 18;

/** A step did not behave as the tour describes: the tour stops and exits 1. */
export class UnexpectedOutcome extends Error {}

export function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new UnexpectedOutcome(what);
}

export const style = styles(process.stdout.isTTY && process.env.NO_COLOR === undefined);

export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function section(title: string, explanation: string): void {
  print();
  print(style.bold(style.cyan(`== ${title} ==`)));
  print(style.dim(explanation));
}

/** `label   text`, with continuation lines aligned under the text. */
export function row(label: string, text: string): void {
  const pad = ' '.repeat(LABEL_WIDTH + 2);
  print(`  ${style.bold(label.padEnd(LABEL_WIDTH))}${text.split('\n').join(`\n${pad}`)}`);
}

export function ok(text: string): void {
  print(`  ${style.green('ok')} ${text}`);
}

/** `label` padded like a row's, for a line that is redrawn in place (the progress bar). */
export function rowLabel(label: string): string {
  return style.bold(label.padEnd(LABEL_WIDTH));
}
