/** The idempotency suite: the checks of a server that advertises `io.github.mcp-ext/idempotency`. */
import { canonicalJson, isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { describe, ensure } from '../assert.js';
import { freshKey, needsConfirmation, needsScopes, sampleArguments, variedArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { ERRORS_ID, readOnlyCall } from './methods.js';

export const IDEMPOTENCY_ID = 'io.github.mcp-ext/idempotency';

/**
 * What stands before `tool`'s key is read: 0 nothing, 1 scopes (the kit's
 * credentials may or may not grant them), 2 a person's confirmation.
 */
function gates(tool: ListedTool): number {
  if (needsConfirmation(tool)) return 2;
  return needsScopes(tool) ? 1 : 0;
}

/** A refusal by a gate that runs before the key is read (scopes, confirmation), not a verdict on the key. */
function gateRefusal(structured: Record<string, unknown> | undefined): boolean {
  return structured?.category === 'auth_required' || structured?.code === 'CONFIRMATION_REQUIRED';
}

/** The tools that take idempotency keys, with arguments the kit can build; the least gated first. */
function participating(ctx: CheckContext): { tool: ListedTool; args: Record<string, unknown> }[] {
  const out: { tool: ListedTool; args: Record<string, unknown> }[] = [];
  for (const tool of ctx.server.tools) {
    const meta = tool._meta?.[ctx.id ?? ''];
    if (!isRecord(meta) || meta.idempotent_capable !== true) continue;
    const args = sampleArguments(tool);
    if (args !== undefined) out.push({ tool, args });
  }
  return out.sort((a, b) => gates(a.tool) - gates(b.tool));
}

/** Advertise idempotency, and errors too when the server has it, so refusals arrive structured. */
function profile(ctx: CheckContext): { extensions: Record<string, Record<string, unknown>> } {
  const extensions: Record<string, Record<string, unknown>> = { [ctx.id ?? IDEMPOTENCY_ID]: { version: '1.0' } };
  if (ERRORS_ID in ctx.server.extensions) extensions[ERRORS_ID] = { version: '1.0' };
  return { extensions };
}

function structuredError(result: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = isRecord(result._meta) ? result._meta[ERRORS_ID] : undefined;
  return isRecord(meta) ? meta : undefined;
}

/** `@ext/idempotency` (SPEC: packages/idempotency/SPEC.md). */
export const idempotencySuite: ExtensionSuite = {
  extension: 'idempotency',
  ids: [IDEMPOTENCY_ID],
  spec: 'packages/idempotency/SPEC.md',
  checks: [
    {
      id: 'idempotency/settings',
      requirement: 'IDEM-1',
      level: 'MUST',
      title: 'settings carry integer default_ttl_seconds and max_ttl_seconds',
      run(ctx) {
        const { default_ttl_seconds: ttl, max_ttl_seconds: max } = ctx.settings;
        ensure(Number.isSafeInteger(ttl) && (ttl as number) >= 1, `default_ttl_seconds is ${describe(ttl)}`);
        ensure(Number.isSafeInteger(max) && (max as number) >= (ttl as number), `max_ttl_seconds is ${describe(max)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'idempotency/tool-meta',
      requirement: 'IDEM-14',
      level: 'MUST',
      title: 'every tool publishes _meta[id].idempotent_capable as a boolean',
      run(ctx) {
        const missing = ctx.server.tools.filter((tool) => {
          const meta = tool._meta?.[ctx.id ?? ''];
          return !isRecord(meta) || typeof meta.idempotent_capable !== 'boolean';
        });
        ensure(
          missing.length === 0,
          `no boolean idempotent_capable on: ${missing.map((tool) => tool.name).join(', ')}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'idempotency/malformed-key-refused',
      requirement: 'IDEM-4',
      level: 'MUST',
      title: 'a malformed idempotency_key is refused as invalid_input naming the field, before the tool runs',
      async run(ctx) {
        const [candidate] = participating(ctx);
        if (candidate === undefined) return ctx.skip('no participating tool whose arguments the kit can build');
        const probe = await ctx.connect(profile(ctx));
        let result: Record<string, unknown>;
        try {
          result = await probe.callTool(candidate.tool.name, candidate.args, {
            [ctx.id ?? '']: { idempotency_key: 'not a valid key!' },
          });
        } catch (error) {
          ensure(error instanceof WireError && error.code === -32602, `expected invalid_input, got ${String(error)}`);
          return;
        }
        ensure(result.isError === true, `a malformed key was accepted: ${describe(result)}`);
        const structured = structuredError(result);
        if (gates(candidate.tool) > 0 && gateRefusal(structured))
          return ctx.skip(
            `${candidate.tool.name} was refused by a gate before its key was read (${describe(structured?.code)}), and no ungated tool takes keys`,
          );
        if (structured !== undefined) {
          ensure(structured.category === 'invalid_input', `category is ${describe(structured.category)}`);
          const details = isRecord(structured.details) ? structured.details : {};
          ensure(
            details.field === 'idempotency_key',
            `details.field is ${describe(details.field)}, expected "idempotency_key"`,
          );
        }
      },
    },
    {
      id: 'idempotency/replay',
      requirement: 'IDEM-8',
      level: 'MUST',
      title: 'a repeat with the same key and arguments replays the stored result with was_replay: true',
      async run(ctx) {
        ctx.requireEffects();
        const [candidate] = participating(ctx);
        if (candidate === undefined) return ctx.skip('no participating tool whose arguments the kit can build');
        const probe = await ctx.connect(profile(ctx));
        const key = freshKey();
        const meta = { [ctx.id ?? '']: { idempotency_key: key } };
        const first = await probe.callTool(candidate.tool.name, candidate.args, meta);
        if (first.isError === true)
          return ctx.skip(`${candidate.tool.name} failed with sample arguments: ${describe(first.content)}`);
        const second = await probe.callTool(candidate.tool.name, candidate.args, meta);
        const firstMeta = isRecord(first._meta) ? first._meta[ctx.id ?? ''] : undefined;
        const secondMeta = isRecord(second._meta) ? second._meta[ctx.id ?? ''] : undefined;
        ensure(isRecord(firstMeta) && firstMeta.was_replay === false, `first result _meta is ${describe(firstMeta)}`);
        ensure(
          isRecord(secondMeta) && secondMeta.was_replay === true,
          `repeat result _meta is ${describe(secondMeta)}`,
        );
        ensure(
          secondMeta.original_timestamp === firstMeta.original_timestamp,
          "the replay must carry the first execution's original_timestamp",
        );
        // Canonical JSON: a store may hand back the same object with its keys in another order.
        ensure(
          canonicalJson(second.structuredContent ?? null) === canonicalJson(first.structuredContent ?? null),
          'the replay differs from the stored result',
        );
      },
    },
    {
      id: 'idempotency/conflict',
      requirement: 'IDEM-9',
      level: 'MUST',
      title: 'the same key with different arguments fails with IDEMPOTENCY_CONFLICT',
      async run(ctx) {
        ctx.requireEffects();
        const candidate = participating(ctx)
          .map((entry) => ({ ...entry, varied: variedArguments(entry.tool, entry.args) }))
          .find((entry) => entry.varied !== undefined);
        if (candidate?.varied === undefined) {
          return ctx.skip('no participating tool with a string, number or boolean property the kit can vary');
        }
        const probe = await ctx.connect(profile(ctx));
        const key = freshKey();
        const meta = { [ctx.id ?? '']: { idempotency_key: key } };
        const first = await probe.callTool(candidate.tool.name, candidate.args, meta);
        if (first.isError === true) return ctx.skip(`${candidate.tool.name} failed with sample arguments`);
        const second = await probe.callTool(candidate.tool.name, candidate.varied.args, meta);
        ensure(second.isError === true, `a different call under the same key was not refused: ${describe(second)}`);
        const structured = structuredError(second);
        if (structured !== undefined)
          ensure(structured.code === 'IDEMPOTENCY_CONFLICT', `code is ${describe(structured.code)}`);
      },
    },
    {
      id: 'idempotency/no-meta-without-negotiation',
      requirement: 'IDEM-3',
      level: 'MUST',
      title: 'a client that did not negotiate idempotency gets no result._meta[id]',
      async run(ctx) {
        const probe = await ctx.connect({});
        const { tool, args } = readOnlyCall(ctx);
        const result = await probe.callTool(tool.name, args);
        const meta = isRecord(result._meta) ? result._meta : {};
        ensure(!((ctx.id ?? '') in meta), `result._meta carries ${ctx.id ?? ''} for a client that never advertised it`);
      },
    },
  ],
};
