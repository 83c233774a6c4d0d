/**
 * `@modelcontextprotocol/server-slack` (npm, read from 2025.4.25): what other
 * people read is confirmed and deduplicated; the reads are rate-limited below
 * Slack's own limits, so a client is told when to retry instead of the bot
 * being throttled for everyone.
 */
import type { ToolPolicy } from '../config/schema.js';
import { READ_ONLY, type PolicyMap } from './policy-map.js';

/** Slack's Web API tiers: history and replies are tier 3 (about 50 a minute), user lists tier 2 (about 20). */
const read = (perMinute: number): ToolPolicy => ({
  ...READ_ONLY,
  cost: { unit: 'requests', latency: 'seconds', rateLimit: { perMinute } },
});

export const SLACK_POLICY: PolicyMap = {
  // Seen (and notified) at once by the whole channel; a retry without a key posts twice.
  slack_post_message: {
    confirm: { message: 'Post to channel {channel_id}: {text}', risk: 'reversible' },
    idempotent: true,
    cost: { unit: 'messages', rateLimit: { perMinute: 20 } },
  },
  slack_reply_to_thread: {
    confirm: { message: 'Reply in thread {thread_ts} of channel {channel_id}: {text}', risk: 'reversible' },
    idempotent: true,
    cost: { unit: 'messages', rateLimit: { perMinute: 20 } },
  },
  // Small and visible, but harmless: not asked about; a second identical reaction is an upstream error.
  slack_add_reaction: { confirm: false, idempotent: true },
  slack_list_channels: read(20),
  slack_get_channel_history: read(50),
  slack_get_thread_replies: read(50),
  slack_get_users: read(20),
  slack_get_user_profile: read(50),
};
