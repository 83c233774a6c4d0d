/**
 * What a tool handler uses during a call: the call's presentation, the
 * features it applied (for the echo), and `render`, which does both.
 */
import { defineLocal } from '@ext/core/kit';
import { type CallContext, type RequestContext, type ToolResult } from '@ext/core';
import { formatFeatureTag, parseFeatureTag } from './grammar.js';
import { defaultPresentation, type Presentation } from './presentation.js';
import { renderResult, type RenderOptions } from './render.js';
import { MAX_FEATURES } from './schema.js';

// Keyed with Symbol.for, so duplicate copies of this package agree on the slots.
/** The presentation resolved for the current call. */
export const presentationSlot = defineLocal<Presentation>('content-negotiation/presentation');
const appliedSlot = defineLocal<string[]>('content-negotiation/applied');
/** What the handler gave `render`, so result variants are rendered from the same data and renderers. */
export const renderedSlot = defineLocal<RenderOptions<Record<string, unknown>>>('content-negotiation/rendered');

/**
 * The presentation of the current tool call: what format and verbosity to
 * answer in, who the client is (`agent` / `human`), and every feature in
 * force. Without the extension (or for a client that did not negotiate it)
 * the server's defaults, so a handler never needs to branch on that.
 */
export function getPresentation(ctx: Pick<RequestContext, 'locals'>): Presentation {
  return presentationSlot.get(ctx) ?? defaultPresentation();
}

function appliedList(ctx: Pick<RequestContext, 'locals'>): string[] {
  let list = appliedSlot.get(ctx);
  if (list === undefined) {
    list = [];
    appliedSlot.set(ctx, list);
  }
  return list;
}

/**
 * Records features the handler applied beyond format and verbosity (e.g.
 * `sampling` when it added reasoning hints), so the echo names them. Tags
 * must be well-formed; at most {@link MAX_FEATURES} are echoed.
 */
export function markApplied(ctx: Pick<RequestContext, 'locals'>, ...tags: string[]): void {
  const list = appliedList(ctx);
  for (const raw of tags) {
    const check = parseFeatureTag(raw);
    if (!check.ok) throw new TypeError(`markApplied: "${raw}" is not a feature tag: ${check.reason}`);
    const canonical = formatFeatureTag(check.tag);
    if (!list.includes(canonical) && list.length < MAX_FEATURES) list.push(canonical);
  }
}

/** The features applied to the current call so far, canonical, in the order they were applied. */
export function appliedFeatures(ctx: Pick<RequestContext, 'locals'>): string[] {
  return [...(appliedSlot.get(ctx) ?? [])];
}

/**
 * Renders `data` as the current call's presentation asks (SPEC.md CN-10..CN-12)
 * and records `format=` and `verbosity=` as applied. One handler serves
 * every client:
 *
 * ```ts
 * server.registerTool('get_ticket', { inputSchema }, async ({ id }, ctx) =>
 *   render(ctx, { data: { ticket: await load(id) }, markdown: ({ ticket }) => `### ${ticket.id}: ${ticket.title}` }),
 * );
 * ```
 */
export function render<T extends Record<string, unknown>>(
  ctx: Pick<CallContext, 'locals' | 'tool'>,
  options: RenderOptions<T>,
): ToolResult {
  const presentation = getPresentation(ctx);
  const result = renderResult(presentation, options, ctx.tool.outputJsonSchema !== undefined);
  markApplied(ctx, `format=${presentation.format}`, `verbosity=${presentation.verbosity}`);
  renderedSlot.set(ctx, options as unknown as RenderOptions<Record<string, unknown>>);
  return result;
}
