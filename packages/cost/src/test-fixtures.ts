/** Tools and a clock shared by the end-to-end tests (not part of the package's entries). */
import type { ExtendedServer, ToolResult } from '@ext/core';
import * as z from 'zod';
import { costOf } from './locals.js';
import { COST_ID, type QuotaWindowMode } from './schema.js';

/** 2026-03-15T12:00:20Z: 20 s into a minute, 12 h before the daily quota resets. */
export const START = Date.UTC(2026, 2, 15, 12, 0, 20);

export class Clock {
  now = START;

  readonly read = (): number => this.now;

  advance(ms: number): void {
    this.now += ms;
  }
}

export const DECLARATIONS = {
  export_analytics: {
    cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
    latency: 'minutes',
    // A calendar quota: 12 a day, reset at 00:00 UTC (the default window slides, COST-20).
    quota: { limit: 12, window: 'fixed' },
  },
  search: { cost: { category: 'free' }, latency: 'instant', rate_limits: { requests_per_minute: 3 } },
  render: {
    cost: { category: 'metered', estimated_units: 2, unit_label: 'credits' },
    latency: 'seconds',
    quota: { limit: 10, window_seconds: 3600, window: 'fixed' },
  },
  wire_funds: {
    cost: { category: 'requires_approval', estimated_units: 1, unit_label: 'transfers' },
    quota: { limit: 5 },
  },
  send_sms: { cost: { category: 'metered', unit_label: 'messages' }, quota: { limit: 4, pool: 'messages' } },
  send_email: { cost: { category: 'metered', unit_label: 'messages' }, quota: { limit: 4, pool: 'messages' } },
} as const;

function text(value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Yields to the event loop, so concurrent calls really overlap inside their handlers. */
function tick(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

/** The fixture server's tools and how often each handler really ran. */
export class Fixture {
  readonly runs = new Map<string, number>();

  count(tool: string): number {
    return this.runs.get(tool) ?? 0;
  }

  #ran(tool: string): void {
    this.runs.set(tool, this.count(tool) + 1);
  }

  readonly setup = (server: ExtendedServer): void => {
    const meta = (name: keyof typeof DECLARATIONS): Record<string, unknown> => ({ [COST_ID]: DECLARATIONS[name] });
    server.registerTool(
      'export_analytics',
      {
        description: 'Exports analytics',
        inputSchema: z.object({ range: z.string() }),
        _meta: meta('export_analytics'),
      },
      async (args) => {
        this.#ran('export_analytics');
        await tick();
        return text(`exported ${args.range}`);
      },
    );
    server.registerTool(
      'search',
      { description: 'Searches', inputSchema: z.object({ q: z.string() }), _meta: meta('search') },
      (args) => {
        this.#ran('search');
        return text(`found ${args.q}`);
      },
    );
    server.registerTool(
      'lookup',
      { description: 'Looks up, at no declared cost', inputSchema: z.object({ id: z.string() }) },
      (args) => {
        this.#ran('lookup');
        return text(`looked up ${args.id}`);
      },
    );
    server.registerTool(
      'render',
      {
        description: 'Renders pages, charging the pages it rendered',
        inputSchema: z.object({
          pages: z.number(),
          report: z.boolean().optional(),
          fail: z.enum(['throw', 'result']).optional(),
        }),
        _meta: meta('render'),
      },
      (args, ctx) => {
        this.#ran('render');
        if (args.report !== false) costOf(ctx)?.reportUnits(args.pages);
        if (args.fail === 'throw') throw new Error('renderer crashed');
        if (args.fail === 'result') return { ...text('render failed'), isError: true };
        return text(`rendered ${args.pages} pages`);
      },
    );
    server.registerTool(
      'wire_funds',
      { description: 'Wires funds', inputSchema: z.object({ amount: z.number() }), _meta: meta('wire_funds') },
      (args) => {
        this.#ran('wire_funds');
        return text(`wired ${args.amount}`);
      },
    );
    server.registerTool(
      'send_sms',
      { description: 'Sends an SMS', inputSchema: z.object({ to: z.string() }), _meta: meta('send_sms') },
      (args) => {
        this.#ran('send_sms');
        return text(`sms to ${args.to}`);
      },
    );
    server.registerTool(
      'send_email',
      { description: 'Sends an email', inputSchema: z.object({ to: z.string() }), _meta: meta('send_email') },
      (args) => {
        this.#ran('send_email');
        return text(`email to ${args.to}`);
      },
    );
  };
}

/**
 * A tool charging `units` of a quota of `limit` per minute (a window that
 * slides unless `window` says `fixed`), whose handler yields before
 * answering; with `failEvery`, every call whose `n` is a multiple of it
 * fails (an `isError` result, so it is charged nothing).
 */
export function quotaTool(
  name: string,
  limit: number,
  units: number,
  runs: { count: number },
  failEvery?: number,
  window: QuotaWindowMode = 'sliding',
) {
  return (server: ExtendedServer): void => {
    server.registerTool(
      name,
      {
        description: `Uses ${units} of ${limit} units a minute`,
        inputSchema: z.object({ n: z.number() }),
        _meta: {
          [COST_ID]: {
            cost: { category: 'metered', estimated_units: units },
            quota: { limit, window_seconds: 60, window },
          },
        },
      },
      async (args) => {
        runs.count += 1;
        await tick();
        if (failEvery !== undefined && args.n % failEvery === 0)
          return { ...text(`call ${args.n} failed`), isError: true };
        return text(`call ${args.n}`);
      },
    );
  };
}

export function textOf(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}
