/**
 * A request as a card on the first paint: pending ones with the decision
 * form, decided ones with who decided, why, and the audit trail. page.js
 * builds the same markup for the requests that arrive later.
 */
import type { ApprovalRecord, ApprovalTrailEntry } from '../record.js';
import { safeHtml, type Html } from './html.js';
import { recordVersion } from './page-record.js';
import { expiresText, instantText, trailTimeText, waitingText } from './time-text.js';

const RISK_LABELS: Readonly<Record<string, string>> = {
  safe: 'Safe',
  reversible: 'Reversible',
  destructive: 'Destructive',
};

const STATE_LABELS: Readonly<Record<string, string>> = {
  pending: 'Pending',
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Withdrawn',
};

const EVENT_LABELS: Readonly<Record<string, string>> = {
  requested: 'Requested',
  attached: 'Asked again',
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  cancelled: 'Withdrawn by the caller',
  claimed: 'Started running',
  executed: 'Ran',
  execution_error: 'Ran and failed',
  outcome_unknown: 'Ran; outcome unknown',
  not_executed: 'Caller told it did not run',
};

const OUTCOME_LABELS: Readonly<Record<string, string>> = {
  executed: 'The call ran',
  execution_error: 'The call ran and failed',
  outcome_unknown: 'The call ran; how it ended is unknown',
  not_executed: 'The call did not run',
};

const iso = (ms: number) => new Date(ms).toISOString();

function riskBadge(record: ApprovalRecord): Html {
  const text = RISK_LABELS[record.risk_level] ?? record.risk_level;
  return safeHtml`<span class="badge risk-${record.risk_level}">${text}</span>`;
}

function argumentsBlock(record: ApprovalRecord): Html {
  if (Object.keys(record.arguments).length === 0) return safeHtml`<p class="no-args">No arguments</p>`;
  const json = JSON.stringify(record.arguments, null, 2);
  return safeHtml`<pre class="args" tabindex="0" aria-label="Arguments">${json}</pre>`;
}

function fact(label: string, value: Html | string, wide = false): Html {
  return safeHtml`<div class="${wide ? 'fact wide' : 'fact'}"><dt>${label}</dt><dd>${value}</dd></div>`;
}

function pendingTimes(record: ApprovalRecord, now: number): Html {
  return safeHtml`<p class="times"><time datetime="${iso(record.created_at)}" data-rel="since">${waitingText(record.created_at, now)}</time><span class="sep" aria-hidden="true">·</span><time class="until" datetime="${iso(record.expires_at)}" data-rel="until">${expiresText(record.expires_at, now)}</time></p>`;
}

function decisionForm(id: string): Html {
  return safeHtml`<div class="decide">
<label class="label" for="reason-${id}">Reason <span class="hint">optional, kept in the audit trail</span></label>
<textarea id="reason-${id}" name="reason" rows="2" maxlength="500" placeholder="Why you approve or deny this call"></textarea>
<p class="error" role="alert" hidden></p>
<div class="actions"><button type="button" class="btn approve" data-decision="approve">Approve</button><button type="button" class="btn deny" data-decision="deny">Deny</button></div>
</div>`;
}

/** A pending request, with the reason box and the Approve and Deny buttons. */
export function pendingCard(record: ApprovalRecord, now: number, focused: boolean): Html {
  const id = record.id;
  const classes = `card pending risk-${record.risk_level}${focused ? ' focused' : ''}`;
  return safeHtml`<article class="${classes}" data-id="${id}" data-state="pending" data-version="${recordVersion(record)}" aria-labelledby="tool-${id}">
<div class="card-head"><div class="tags">${riskBadge(record)}</div>${pendingTimes(record, now)}</div>
<h3 class="tool" id="tool-${id}">${record.tool}</h3>
<p class="message">${record.message}</p>
<dl class="facts">${fact('Requested by', record.principal)}${fact('Request', safeHtml`<span class="mono">${id}</span>`)}</dl>
<div class="args-block"><div class="label">Arguments</div>${argumentsBlock(record)}</div>
${decisionForm(id)}
</article>`;
}

function trailItem(entry: ApprovalTrailEntry): Html {
  const event = EVENT_LABELS[entry.event] ?? entry.event;
  const by = entry.by === undefined ? '' : safeHtml` <span class="by">by ${entry.by}</span>`;
  const reason = entry.reason === undefined ? '' : safeHtml` <q class="reason">${entry.reason}</q>`;
  return safeHtml`<li><time datetime="${iso(entry.at)}" data-format="trail">${trailTimeText(entry.at)}</time> <span class="event event-${entry.event}">${event}</span>${by}${reason}</li>`;
}

function decidedFacts(record: ApprovalRecord): Html {
  const expired = record.state === 'expired';
  const decider = expired ? safeHtml`<span class="muted">Nobody decided in time</span>` : (record.decided_by ?? '');
  const reason = record.reason === undefined ? '' : fact('Reason', record.reason, true);
  const outcome = record.outcome === undefined ? '' : fact('Outcome', OUTCOME_LABELS[record.outcome] ?? record.outcome);
  return safeHtml`<dl class="facts">${fact('Requested by', record.principal)}${fact(expired ? 'Decision' : 'Decided by', decider)}${reason}${outcome}</dl>`;
}

/** A decided (or expired) request: who decided, why, and the audit trail. */
export function decidedCard(record: ApprovalRecord, focused: boolean): Html {
  const at = record.decided_at ?? record.expires_at;
  const classes = `card decided state-${record.state}${focused ? ' focused' : ''}`;
  const state = STATE_LABELS[record.state] ?? record.state;
  return safeHtml`<article class="${classes}" data-id="${record.id}" data-state="${record.state}" data-version="${recordVersion(record)}">
<div class="card-head"><div class="tags"><span class="state state-${record.state}">${state}</span>${riskBadge(record)}</div>
<p class="times"><time datetime="${iso(at)}" data-format="abs">${instantText(at)}</time></p></div>
<h3 class="tool">${record.tool}</h3>
<p class="message">${record.message}</p>
${decidedFacts(record)}
<div class="trail-block"><div class="label">Audit trail</div><ol class="trail">${record.trail.map(trailItem)}</ol></div>
<details class="more"><summary>Arguments</summary>${argumentsBlock(record)}</details>
</article>`;
}
