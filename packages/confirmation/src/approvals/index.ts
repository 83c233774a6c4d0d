/**
 * The `@ext/confirmation/approvals` entry: approval requests decided out of
 * band (the desk), the approver backends, and SEP-2848's identifiers.
 */
export { approvalDesk } from './desk.js';
export { approvalSummary } from './summary.js';
export type { ApprovalDesk, ApprovalDeskOptions, ApprovalEvent, ApprovalListOptions, ApproverBackend } from './desk.js';
export type {
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequestInput,
  ApprovalState,
  ApprovalTrailEntry,
} from './record.js';
export {
  TOOL_APPROVAL_DISPOSITION_KEY,
  TOOL_APPROVAL_DISPOSITIONS,
  TOOL_APPROVAL_ID,
  TOOL_APPROVAL_OWN_ID,
  type ToolApprovalDisposition,
} from './tool-approval.js';
export { approvalWebhooks, LINK_DECIDER } from './webhooks/index.js';
export type {
  ApprovalWebhooks,
  ApprovalWebhooksOptions,
  ApprovalWebhookType,
  DecisionLinks,
  WebhookEndpoint,
} from './webhooks/index.js';
export { approvalsPage, type ApprovalsPage } from './page/index.js';
export type { ApprovalsPageOptions, PageCaller } from './page/index.js';
