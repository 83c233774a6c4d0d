/**
 * SEP-2848 (`io.modelcontextprotocol/tool-approval`, draft of 2026-06-02):
 * the identifier a server advertises beside the Tasks extension when calls
 * may be held for an approver out of band, and the disposition every
 * approval task's result carries.
 */
import type { ServerExtension } from '@ext/core';

/** The draft's identifier. */
export const TOOL_APPROVAL_ID = 'io.modelcontextprotocol/tool-approval';

/** Our own identifier for the same subject, which the draft's is an alias of (SEP-2133 negotiation). */
export const TOOL_APPROVAL_OWN_ID = 'io.github.mcp-ext/tool-approval';

/** `_meta` key of the result of a completed approval task. */
export const TOOL_APPROVAL_DISPOSITION_KEY = 'io.modelcontextprotocol/tool-approval-disposition';

/** What happened to the call an approval task held. */
export type ToolApprovalDisposition =
  'approved-executed' | 'denied-not-executed' | 'execution-error' | 'outcome-unknown';

/** Every disposition the draft defines. */
export const TOOL_APPROVAL_DISPOSITIONS: readonly ToolApprovalDisposition[] = [
  'approved-executed',
  'denied-not-executed',
  'execution-error',
  'outcome-unknown',
];

/**
 * Advertises `io.modelcontextprotocol/tool-approval` (and our own
 * identifier): compose it beside `confirmationServer({ approvals })` and
 * `tasksServer`, on a server that holds calls for an operator. It adds no
 * stage: the held call is the confirmation stage's, the task is the tasks
 * stage's.
 */
export function toolApprovalServer(): ServerExtension {
  return {
    side: 'server',
    name: '@ext/confirmation/tool-approval',
    ids: [TOOL_APPROVAL_OWN_ID, TOOL_APPROVAL_ID],
    reservedAliases: [TOOL_APPROVAL_ID],
    settings: { version: '0.1' },
    requires: ['@ext/confirmation', '@ext/tasks'],
  };
}
