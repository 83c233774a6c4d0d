/**
 * The Slack message of an approval event (Block Kit): a `text` fallback,
 * the request (tool, principal, risk, message), its arguments in a code
 * block, and Approve and Deny buttons opening the decision links. Every
 * value is the caller's, so hostile: `&`, `<` and `>` are escaped (no
 * links, mentions or `<!channel>` can be smuggled in) and lengths are cut
 * to fit Slack's limits. Pure.
 */
import type { JsonValue } from '@ext/core/kit';
import type { ApprovalEvent } from '../desk.js';
import type { ApprovalRecord } from '../record.js';
import type { DecisionLinks } from './standard-message.js';

/** Longest escaped text kept per value, so a section stays under Slack's 3000 characters. */
const LIMITS = { name: 200, message: 1200, reason: 500, arguments: 2400 } as const;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * `raw` with Slack's control characters escaped, cut (on a whole
 * character, never inside an entity) to at most `max` characters.
 */
export function slackEscape(raw: string, max: number = Number.POSITIVE_INFINITY): string {
  const pieces = Array.from(raw, (char) => ENTITIES[char] ?? char);
  const whole = pieces.join('');
  if (whole.length <= max) return whole;
  let out = '';
  for (const piece of pieces) {
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

/** The arguments as a code block: escaped, cut, and unable to close the block early. */
function codeBlock(args: ApprovalRecord['arguments']): string {
  const json = JSON.stringify(args, null, 2);
  const text = slackEscape(json, LIMITS.arguments).replaceAll('`', '`\u200b');
  return `\`\`\`${text}\`\`\``;
}

function mrkdwn(text: string): JsonValue {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function button(label: string, url: string, style: 'primary' | 'danger', actionId: string): JsonValue {
  return { type: 'button', text: { type: 'plain_text', text: label }, style, url, action_id: actionId };
}

function facts(record: ApprovalRecord): string {
  return [
    `*Tool:* ${slackEscape(record.tool, LIMITS.name)}`,
    `*Principal:* ${slackEscape(record.principal, LIMITS.name)}`,
    `*Risk:* ${slackEscape(record.risk_level, LIMITS.name)}`,
    `*Message:* ${slackEscape(record.message, LIMITS.message)}`,
  ].join('\n');
}

function context(record: ApprovalRecord): JsonValue {
  const text = `Approval request ${slackEscape(record.id, LIMITS.name)} · expires ${new Date(record.expires_at).toISOString()}`;
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

function requested(record: ApprovalRecord, links: DecisionLinks): JsonValue {
  const who = `${slackEscape(record.tool, LIMITS.name)} for ${slackEscape(record.principal, LIMITS.name)}`;
  return {
    text: `Approval requested: ${who} (${slackEscape(record.risk_level, LIMITS.name)} risk)`,
    blocks: [
      mrkdwn(`*Approval requested*\n${facts(record)}`),
      mrkdwn(`*Arguments*\n${codeBlock(record.arguments)}`),
      context(record),
      {
        type: 'actions',
        block_id: 'approval_decision',
        elements: [
          button('Approve', links.approve, 'primary', 'approve'),
          button('Deny', links.deny, 'danger', 'deny'),
        ],
      },
    ],
  };
}

function decided(record: ApprovalRecord): JsonValue {
  const by = record.decided_by === undefined ? '' : ` by ${slackEscape(record.decided_by, LIMITS.name)}`;
  const reason = record.reason === undefined ? '' : `\n*Reason:* ${slackEscape(record.reason, LIMITS.reason)}`;
  const who = `${slackEscape(record.tool, LIMITS.name)} for ${slackEscape(record.principal, LIMITS.name)}`;
  return {
    text: `Approval ${record.state}${by}: ${who}`,
    blocks: [mrkdwn(`*Approval ${record.state}*${by}${reason}\n${facts(record)}`), context(record)],
  };
}

/** The Slack message of `event`; `links` are the decision links of a request just made. */
export function slackMessage(event: ApprovalEvent, links: DecisionLinks | undefined): JsonValue {
  return event.type === 'requested' && links !== undefined ? requested(event.record, links) : decided(event.record);
}
