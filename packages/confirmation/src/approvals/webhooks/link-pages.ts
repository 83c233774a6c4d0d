/**
 * The HTML a decision link answers with: the confirmation page a GET shows
 * (what will be decided, and a form that POSTs back to the same URL), the
 * page saying what was decided, and the refusals. Plain semantic HTML, no
 * style and no script, every value escaped. Pure.
 */
import type { ApprovalRecord } from '../record.js';
import type { LinkDecision } from './link-token.js';

/** Longest argument text shown; the rest is cut. */
const MAX_ARGUMENTS_LENGTH = 4000;
const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `value` safe in HTML text and in a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ENTITIES[char] ?? char);
}

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${escapeHtml(title)}</h1>`,
    body,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function argumentsText(record: ApprovalRecord): string {
  const json = JSON.stringify(record.arguments, null, 2);
  return json.length <= MAX_ARGUMENTS_LENGTH ? json : `${json.slice(0, MAX_ARGUMENTS_LENGTH)}…`;
}

function facts(record: ApprovalRecord): string {
  const row = (name: string, value: string) => `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>`;
  return [
    '<dl>',
    row('Tool', record.tool),
    row('Principal', record.principal),
    row('Risk', record.risk_level),
    row('Message', record.message),
    row('Request', record.id),
    row('Expires', new Date(record.expires_at).toISOString()),
    '</dl>',
    '<h2>Arguments</h2>',
    `<pre>${escapeHtml(argumentsText(record))}</pre>`,
  ].join('\n');
}

/** The page a GET shows: what the link will decide, and the one button that does it. */
export function confirmationPage(record: ApprovalRecord, decision: LinkDecision): string {
  const verb = decision === 'approve' ? 'Approve' : 'Deny';
  return page(
    `${verb} this call?`,
    [
      `<p>Submitting this form will <strong>${decision}</strong> the call below. Opening this page decided nothing.</p>`,
      facts(record),
      '<form method="post">',
      '<p><label for="reason">Reason (optional)</label><br>',
      '<textarea id="reason" name="reason" rows="3" cols="60" maxlength="500"></textarea></p>',
      `<p><button type="submit">${verb}</button></p>`,
      '</form>',
    ].join('\n'),
  );
}

/** The page after a decision. */
export function decidedPage(record: ApprovalRecord): string {
  const title = record.state === 'approved' ? 'Approved' : 'Denied';
  return page(
    title,
    [`<p>The call was ${escapeHtml(record.state)}. You can close this page.</p>`, facts(record)].join('\n'),
  );
}

/** A refusal: what happened, in words. */
export function refusalPage(title: string, text: string): string {
  return page(title, `<p>${escapeHtml(text)}</p>`);
}
