/** The confirmation suite: the checks of a server that advertises `io.github.mcp-ext/confirmation`. */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { describe, ensure } from '../assert.js';
import { firstText, freshKey, needsScopes, sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { IDEMPOTENCY_ID } from './idempotency.js';
import { ERRORS_ID, resultMeta } from './methods.js';

export const CONFIRMATION_ID = 'io.github.mcp-ext/confirmation';
const RISK_LEVELS = ['safe', 'reversible', 'destructive'];

function entry(ctx: CheckContext, tool: ListedTool): Record<string, unknown> | undefined {
  const meta = tool._meta?.[ctx.id ?? ''];
  return isRecord(meta) ? meta : undefined;
}

/**
 * A tool that needs confirmation, passes `accept`, and whose arguments the
 * kit can build; one that needs no scopes first, since the kit's
 * credentials may not grant them and a scope refusal is no verdict here.
 */
function gated(
  ctx: CheckContext,
  accept: (tool: ListedTool) => boolean = () => true,
): { tool: ListedTool; args: Record<string, unknown> } {
  const candidates = ctx.server.tools
    .filter((tool) => entry(ctx, tool)?.requires_confirmation === true && accept(tool))
    .sort((a, b) => Number(needsScopes(a)) - Number(needsScopes(b)));
  for (const tool of candidates) {
    const args = sampleArguments(tool);
    if (args !== undefined) return { tool, args };
  }
  return ctx.skip('no tool requires confirmation with arguments the kit can build');
}

/** Whether the server's tool takes idempotency keys. */
function takesKeys(tool: ListedTool): boolean {
  const meta = tool._meta?.[IDEMPOTENCY_ID];
  return isRecord(meta) && meta.idempotent_capable === true;
}

/** A probe speaking the extension under test, and errors when the server offers it (so refusals can be read). */
function tokenProbe(ctx: CheckContext) {
  const withErrors = ERRORS_ID in ctx.server.extensions;
  return ctx.connect({
    extensions: {
      [ctx.id ?? CONFIRMATION_ID]: { version: typeof ctx.settings.version === 'string' ? ctx.settings.version : '1.0' },
      ...(withErrors ? { [ERRORS_ID]: { version: '1.0' } } : {}),
    },
  });
}

/** Ends the check as skipped when the server holds the tool for an operator (CONF-22): neither a token nor a refusal applies. */
function skipIfOperatorHeld(ctx: CheckContext, result: Record<string, unknown>, tool: ListedTool): void {
  if (resultMeta(result, ERRORS_ID)?.code === 'CONFIRMATION_PENDING') {
    ctx.skip(`${tool.name} is held for an operator (CONF-22, the tool-approval suite checks it)`);
  }
}

/** `@ext/confirmation` (SPEC: packages/confirmation/SPEC.md). */
export const confirmationSuite: ExtensionSuite = {
  extension: 'confirmation',
  ids: [CONFIRMATION_ID],
  spec: 'packages/confirmation/SPEC.md',
  checks: [
    {
      id: 'confirmation/settings',
      requirement: 'CONF-14',
      level: 'MUST',
      title: 'settings carry integer token_ttl_seconds and max_batch_size',
      run(ctx) {
        for (const field of ['token_ttl_seconds', 'max_batch_size']) {
          const value = ctx.settings[field];
          ensure(Number.isSafeInteger(value) && (value as number) >= 1, `${field} is ${describe(value)}`);
        }
        return Promise.resolve();
      },
    },
    {
      id: 'confirmation/tool-meta',
      requirement: 'CONF-1',
      level: 'MUST',
      title: 'every declared entry is normalized: a boolean requires_confirmation and a known risk_level',
      run(ctx) {
        const bad = ctx.server.tools.filter((tool) => {
          const meta = entry(ctx, tool);
          return (
            meta !== undefined &&
            (typeof meta.requires_confirmation !== 'boolean' || !RISK_LEVELS.includes(String(meta.risk_level)))
          );
        });
        ensure(
          bad.length === 0,
          `entries not normalized on: ${bad.map((tool) => `${tool.name} ${describe(entry(ctx, tool))}`).join('; ')}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'confirmation/destructive-requires-confirmation',
      requirement: 'CONF-2',
      level: 'MUST',
      title: 'a destructive tool requires confirmation',
      run(ctx) {
        const bad = ctx.server.tools.filter(
          (tool) => entry(ctx, tool)?.risk_level === 'destructive' && entry(ctx, tool)?.requires_confirmation !== true,
        );
        ensure(bad.length === 0, `destructive without confirmation: ${bad.map((tool) => tool.name).join(', ')}`);
        return Promise.resolve();
      },
    },
    {
      id: 'confirmation/destructive-hint',
      requirement: 'CONF-3',
      level: 'MUST',
      title: 'annotations.destructiveHint is true exactly when risk_level is destructive',
      run(ctx) {
        const bad = ctx.server.tools.filter((tool) => {
          const meta = entry(ctx, tool);
          return meta !== undefined && tool.annotations?.destructiveHint !== (meta.risk_level === 'destructive');
        });
        ensure(
          bad.length === 0,
          `destructiveHint disagrees with risk_level on: ${bad.map((tool) => tool.name).join(', ')}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'confirmation/fail-closed',
      requirement: 'CONF-7',
      level: 'MUST',
      title: 'a client that can neither confirm nor elicit is refused with CONFIRMATION_REQUIRED (permanent)',
      async run(ctx) {
        const { tool, args } = gated(ctx);
        const withErrors = ERRORS_ID in ctx.server.extensions;
        const probe = await ctx.connect({ extensions: withErrors ? { [ERRORS_ID]: { version: '1.0' } } : {} });
        let result: Record<string, unknown>;
        try {
          result = await probe.callTool(tool.name, args);
        } catch (error) {
          ensure(error instanceof WireError, String(error));
          return;
        }
        ensure(
          result.isError === true,
          `${tool.name} was not refused for a client without confirmation: ${describe(result)}`,
        );
        skipIfOperatorHeld(ctx, result, tool);
        const structured = withErrors ? resultMeta(result, ERRORS_ID) : undefined;
        if (structured !== undefined) {
          ensure(
            structured.code === 'CONFIRMATION_REQUIRED' && structured.category === 'permanent',
            `structured error is ${describe(structured)}`,
          );
        }
        ensure(firstText(result).trim() !== '', 'the refusal has no readable text');
      },
    },
    {
      id: 'confirmation/token-required-first',
      requirement: 'CONF-8',
      level: 'MUST',
      title:
        'the first call of a negotiated client returns status confirmation_required with an unguessable token, not an error',
      async run(ctx) {
        const { tool, args } = gated(ctx);
        const probe = await tokenProbe(ctx);
        const result = await probe.callTool(tool.name, args);
        skipIfOperatorHeld(ctx, result, tool);
        ensure(result.isError !== true, `the first call failed: ${describe(result)}`);
        const meta = resultMeta(result, ctx.id);
        ensure(meta?.status === 'confirmation_required', `result._meta is ${describe(result._meta)}`);
        ensure(
          typeof meta.confirmation_token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(meta.confirmation_token),
          `confirmation_token is ${describe(meta.confirmation_token)}`,
        );
        ensure(
          meta.tool === tool.name && RISK_LEVELS.includes(String(meta.risk_level)),
          `tool/risk_level are ${describe([meta.tool, meta.risk_level])}`,
        );
        ensure(
          typeof meta.expires_at === 'string' && Date.parse(meta.expires_at) > Date.now(),
          `expires_at is ${describe(meta.expires_at)}`,
        );
        ensure(typeof meta.message === 'string' && meta.message !== '', 'no message for the person');
      },
    },
    {
      id: 'confirmation/token-single-use',
      requirement: 'CONF-10',
      level: 'MUST',
      title: 'a retry with the token runs once (status confirmed); replaying the token is refused',
      async run(ctx) {
        ctx.requireEffects();
        const { tool, args } = gated(ctx);
        const probe = await tokenProbe(ctx);
        const held = await probe.callTool(tool.name, args);
        skipIfOperatorHeld(ctx, held, tool);
        const first = resultMeta(held, ctx.id);
        const token = first?.confirmation_token;
        ensure(typeof token === 'string', `no token: ${describe(first)}`);
        const confirmed = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { confirmation_token: token } });
        if (confirmed.isError === true)
          return ctx.skip(`${tool.name} failed with sample arguments once confirmed: ${firstText(confirmed)}`);
        const meta = resultMeta(confirmed, ctx.id);
        ensure(meta?.status === 'confirmed' && meta.via === 'token', `the confirmed result carries ${describe(meta)}`);
        const replay = await probe.callTool(tool.name, args, { [ctx.id ?? '']: { confirmation_token: token } });
        ensure(replay.isError === true, `a replayed token was accepted: ${describe(replay)}`);
      },
    },
    {
      id: 'confirmation/replay-unasked',
      requirement: 'CONF-20',
      level: 'MUST',
      title: 'a confirmed call sent again under its idempotency key replays, without asking again',
      async run(ctx) {
        ctx.requireEffects();
        if (!(IDEMPOTENCY_ID in ctx.server.extensions)) return ctx.skip('the server does not advertise idempotency');
        const { tool, args } = gated(ctx, takesKeys);
        const probe = await ctx.connect({
          extensions: { [ctx.id ?? CONFIRMATION_ID]: { version: '1.0' }, [IDEMPOTENCY_ID]: { version: '1.0' } },
        });
        const key = { [IDEMPOTENCY_ID]: { idempotency_key: freshKey() } };
        const held = resultMeta(await probe.callTool(tool.name, args, key), ctx.id);
        const token = held?.confirmation_token;
        ensure(typeof token === 'string', `no token: ${describe(held)}`);
        const meta = { ...key, [ctx.id ?? '']: { confirmation_token: token } };
        const confirmed = await probe.callTool(tool.name, args, meta);
        if (confirmed.isError === true)
          return ctx.skip(`${tool.name} failed with sample arguments once confirmed: ${firstText(confirmed)}`);
        // The answer was lost: the very same request again, its token spent.
        const again = await probe.callTool(tool.name, args, meta);
        ensure(again.isError !== true, `the retry was refused: ${describe(again)}`);
        ensure(
          resultMeta(again, ctx.id)?.status !== 'confirmation_required',
          `the retry was held for confirmation again: ${describe(again._meta)}`,
        );
        ensure(
          resultMeta(again, IDEMPOTENCY_ID)?.was_replay === true,
          `the retry was not a replay: ${describe(again._meta)}`,
        );
      },
    },
  ],
};
