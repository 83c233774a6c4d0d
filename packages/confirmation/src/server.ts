/**
 * The server half of `@ext/confirmation` (the `./server` entry): the
 * extension descriptor, assembled from the options, the tool gates, the
 * middleware and the methods.
 */
import type { ServerExtension } from '@ext/core';
import { confirmationMethods } from './methods.js';
import { confirmationMiddleware } from './middleware.js';
import { resolveOptions, type ConfirmationServerOptions } from './options.js';
import {
  CONFIRMATION_ID,
  CONFIRMATION_PACKAGE,
  CONFIRMATION_WIRE_VERSION,
  ConfirmationClientSettingsSchema,
  type ConfirmationServerSettings,
} from './schema.js';
import { toolGates } from './tool-gates.js';

export type { Approver, ApproverRule, ConfirmationGrantOptions, ConfirmationServerOptions } from './options.js';
export { approvalTasks } from './middleware.js';
export { toolApprovalServer } from './approvals/tool-approval.js';
export { readConfirmationAudit, type ConfirmationAuditEntry, type ConfirmationAuditEvent } from './audit.js';
export { CONFIRM_INPUT_KEY, confirmationElicitation } from './logic.js';

/**
 * The server half of human-in-the-loop confirmation. Tools declare their
 * gate in `Tool._meta["io.github.mcp-ext/confirmation"]`; a gated call runs
 * only after the user approved it: in-band (elicitation), with a
 * single-use token (clients that negotiated the extension), or not at all.
 */
export function confirmationServer(options: ConfirmationServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const gates = toolGates();
  const settings: ConfirmationServerSettings = {
    version: CONFIRMATION_WIRE_VERSION,
    token_ttl_seconds: config.tokenTtlMs / 1000,
    max_batch_size: config.maxBatchSize,
  };
  if (config.grants !== undefined) {
    settings.grants = { max_calls: config.grants.maxCalls, max_duration_seconds: config.grants.maxDurationSeconds };
  }
  return {
    side: 'server',
    keepsCallerState: true,
    name: CONFIRMATION_PACKAGE,
    ids: [CONFIRMATION_ID],
    settings,
    peerSettings: ConfirmationClientSettingsSchema,
    stage: 'confirmation',
    middleware: confirmationMiddleware(config, gates),
    methods: confirmationMethods(config, gates),
    toolMeta: (tool) => gates.toolMeta(tool),
    toolAnnotations(tool) {
      const gate = gates.of(tool);
      // MCP's advisory hint follows the enforced risk level (CONF-3).
      return gate === undefined ? undefined : { destructiveHint: gate.riskLevel === 'destructive' };
    },
  };
}
