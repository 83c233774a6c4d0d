/**
 * Approval webhooks: each approval request sent, signed per Standard
 * Webhooks, to the endpoints an operator watches (a receiver of their own
 * or a Slack channel), with single-use signed links to approve or deny it.
 */
export { approvalWebhooks } from './approval-webhooks.js';
export type { ApprovalWebhooks } from './approval-webhooks.js';
export type { ApprovalWebhooksOptions, WebhookEndpoint } from './options.js';
export type { ApprovalWebhookType, DecisionLinks } from './standard-message.js';
export { LINK_DECIDER } from './links-handler.js';
