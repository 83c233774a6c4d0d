/**
 * The tool-call middleware: finds the gate a call must pass and picks the
 * path that asks a person, with a token (b), in-band (a), or not at all, in
 * which case the call is refused (c, fail closed).
 */
import {
  approvalRequirements,
  ExtensionError,
  grantApproval,
  metaPointer,
  type CallContext,
  type ToolCall,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import { audit } from './audit.js';
import { confirmByElicitation, confirmByInputRound } from './in-band.js';
import { confirmationMessage, effectiveGate, type ToolGate } from './logic.js';
import type { ConfirmationConfig } from './options.js';
import { readRequestMeta } from './request-meta.js';
import { CONFIRMATION_ID, type ConfirmationRequiredMeta, type ConfirmedMeta } from './schema.js';
import { drawGrant, issueToken, redeemToken } from './token-store.js';
import type { ToolGates } from './tool-gates.js';

/** A copy of `result` with `_meta[id]` set. */
function withResultMeta(result: ToolResult, id: string, value: ConfirmedMeta): ToolResult {
  return { ...result, _meta: { ...(result._meta ?? {}), [id]: value } };
}

/** Holds the call for a token (b): nothing runs, and the result carries the token the person's "yes" redeems. */
async function holdForToken(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  id: string,
  gate: ToolGate,
  message: string,
): Promise<ToolResult> {
  const { token, record } = await issueToken(config, call, ctx, gate, message);
  const meta: ConfirmationRequiredMeta = {
    status: 'confirmation_required',
    confirmation_token: token,
    tool: call.name,
    message,
    risk_level: gate.riskLevel,
    expires_at: new Date(record.expires_at).toISOString(),
  };
  return {
    content: [
      {
        type: 'text',
        text:
          `Confirmation required (${gate.riskLevel}): ${message}\n` +
          `Nothing was done. Ask the user; if they approve, call "${call.name}" again with the same arguments ` +
          `and params._meta["${id}"].confirmation_token. The token expires at ${meta.expires_at}.`,
      },
    ],
    _meta: { [id]: meta },
  };
}

/** Runs the call on the token or grant its `params._meta[id]` entry carries (b), or refuses the entry (CONF-9a). */
async function runWithEntry(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  next: () => Promise<ToolResult>,
  id: string,
  raw: unknown,
): Promise<ToolResult> {
  const reading = readRequestMeta(raw);
  if (reading.kind === 'invalid') {
    throw new ExtensionError(
      'invalid_input',
      'INVALID_INPUT',
      `params._meta["${id}"]${reading.path} ${reading.message}; nothing was executed`,
      {
        userActionable: false,
        suggestion:
          'Send the confirmation_token (or grant_id) exactly as the server issued it, or leave the entry out to get a new token.',
        details: { pointer: `${metaPointer(id)}${reading.path}` },
      },
    );
  }
  if (reading.kind === 'token') {
    await redeemToken(config, call, ctx, reading.token);
    return withResultMeta(await next(), id, { status: 'confirmed', via: 'token' });
  }
  const remaining = await drawGrant(config, call, ctx, reading.grantId);
  return withResultMeta(await next(), id, { status: 'confirmed', via: 'grant', grant_calls_remaining: remaining });
}

/** Fail closed (CONF-7): nobody can be asked, so the call never runs. */
async function refuseUnasked(
  config: ConfirmationConfig,
  call: ToolCall,
  ctx: CallContext,
  gate: ToolGate,
  message: string,
): Promise<never> {
  await audit(config, ctx.store, {
    event: 'refused_no_channel',
    principal: ctx.principal,
    tool: call.name,
    risk_level: gate.riskLevel,
  });
  throw new ExtensionError(
    'permanent',
    'CONFIRMATION_REQUIRED',
    `"${call.name}" is a ${gate.riskLevel} operation that needs a person's approval, and this client can neither ask its user (elicitation) nor speak the ${CONFIRMATION_ID} extension; the call was not executed`,
    {
      userActionable: true,
      suggestion: `Use a client that supports elicitation or the ${CONFIRMATION_ID} extension to perform this operation.`,
      details: { tool: call.name, risk_level: gate.riskLevel, message },
    },
  );
}

/** The middleware of the `confirmation` stage. */
export function confirmationMiddleware(config: ConfirmationConfig, gates: ToolGates): ToolMiddleware {
  return async (call, ctx, inner) => {
    const gate = effectiveGate(gates.of(ctx.tool), approvalRequirements(ctx));
    if (gate === undefined) return inner();
    // Every path that reaches the tool went through a person's explicit yes (CONF-19).
    const next = (): Promise<ToolResult> => {
      grantApproval(ctx);
      return inner();
    };
    const message = confirmationMessage(ctx.tool, gate, call.arguments);
    const negotiated = ctx.negotiated(CONFIRMATION_ID);
    if (negotiated !== undefined) {
      const raw = call.meta[negotiated.id];
      // Only an absent entry asks for a token; any entry sent must be a valid one (CONF-9a).
      if (raw !== undefined) return runWithEntry(config, call, ctx, next, negotiated.id, raw);
      if (!(config.prefer === 'elicitation' && (ctx.elicit !== undefined || ctx.inputRound !== undefined)))
        return holdForToken(config, call, ctx, negotiated.id, gate, message);
    }
    const confirmed = (result: ToolResult): ToolResult =>
      negotiated === undefined
        ? result
        : withResultMeta(result, negotiated.id, { status: 'confirmed', via: 'elicitation' });
    if (ctx.elicit !== undefined) {
      await confirmByElicitation(config, call, ctx, gate, message, ctx.elicit);
      return confirmed(await next());
    }
    if (ctx.inputRound !== undefined) {
      const question = await confirmByInputRound(config, call, ctx, gate, message, ctx.inputRound);
      return question ?? confirmed(await next());
    }
    return refuseUnasked(config, call, ctx, gate, message);
  };
}
