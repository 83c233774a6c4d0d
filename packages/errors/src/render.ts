/** The text of a failed call: plain, or in the format and verbosity content negotiation chose for the call. */
import type { StructuredError } from '@ext/core';
import { type CallPresentation } from '@ext/content-negotiation';

function retryLine(error: StructuredError): string | undefined {
  const waits = error.category === 'rate_limited' || error.category === 'transient';
  return waits && error.retry_after_seconds !== undefined
    ? `Retry after ${error.retry_after_seconds} seconds.`
    : undefined;
}

/** The text a person or a model reads: the message, then the suggestion and the wait, if any (ERR-2). */
export function plainErrorText(error: StructuredError): string {
  return [error.message, error.suggestion, retryLine(error)].filter((line) => line !== undefined).join('\n');
}

function facts(error: StructuredError): [string, string][] {
  const out: [string, string][] = [
    ['Code', error.code],
    ['Category', error.category],
  ];
  if (error.details !== undefined) out.push(['Details', JSON.stringify(error.details)]);
  if (error.documentation_url !== undefined) out.push(['Documentation', error.documentation_url]);
  return out;
}

/**
 * The failure text in a negotiated presentation (ERR-24): `json` is the
 * structured error itself, serialized; `markdown` and `text` say more as
 * verbosity grows (compact: the message; standard: plus suggestion and
 * wait, exactly the ERR-2 text for `text`; verbose: plus code, category,
 * details and documentation link). Without a presentation, the ERR-2 text.
 */
export function renderErrorText(error: StructuredError, presentation: CallPresentation | undefined): string {
  if (presentation === undefined) return plainErrorText(error);
  const { format, verbosity } = presentation;
  if (format === 'json')
    return verbosity === 'verbose' ? JSON.stringify({ error }, null, 2) : JSON.stringify({ error });
  if (format === 'text') {
    if (verbosity === 'compact') return error.message;
    const standard = plainErrorText(error);
    return verbosity === 'standard'
      ? standard
      : [standard, ...facts(error).map(([name, value]) => `${name}: ${value}`)].join('\n');
  }
  const blocks = [`**Error:** ${error.message}`];
  if (verbosity !== 'compact') {
    if (error.suggestion !== undefined) blocks.push(`**Suggestion:** ${error.suggestion}`);
    const retry = retryLine(error);
    if (retry !== undefined) blocks.push(`_${retry}_`);
  }
  if (verbosity === 'verbose')
    blocks.push(
      facts(error)
        .map(([name, value]) => `- ${name}: \`${value}\``)
        .join('\n'),
    );
  return blocks.join('\n\n');
}
