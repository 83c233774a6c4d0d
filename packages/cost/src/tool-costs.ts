/**
 * The cost declarations of one server's tools: each read once, checked when
 * the tool is registered (so a mistake fails at startup), and the tools of
 * one quota pool held to one limit and window.
 */
import { ConfigurationError, type ToolInfo } from '@ext/core';
import { parseToolCost } from './declaration.js';
import { COST_ID, type CostToolMeta } from './schema.js';

export class ToolCosts {
  readonly #metas = new WeakMap<ToolInfo, CostToolMeta | null>();
  readonly #declared = new Map<string, CostToolMeta>();
  readonly #pools = new Map<string, { tool: string; limit: number; windowSeconds: number; window: string }>();

  /** The declaration of `tool`, read and checked on first sight; `undefined` when it declares no cost. */
  metaOf(tool: ToolInfo): CostToolMeta | undefined {
    const cached = this.#metas.get(tool);
    if (cached !== undefined) return cached ?? undefined;
    const raw = tool._meta?.[COST_ID];
    let meta: CostToolMeta | undefined;
    if (raw !== undefined) {
      const parsed = parseToolCost(raw);
      if (!parsed.ok) {
        const where = parsed.field === '' ? `_meta["${COST_ID}"]` : `_meta["${COST_ID}"].${parsed.field}`;
        throw new ConfigurationError(
          'INVALID_TOOL_META',
          `costServer: tool "${tool.name}": ${where}: ${parsed.message}`,
        );
      }
      meta = parsed.value;
      this.#checkPool(tool.name, meta);
    }
    this.#metas.set(tool, meta ?? null);
    return meta;
  }

  /** Reads `tool`'s declaration as it is registered, and keeps it for the status method. */
  register(tool: ToolInfo): CostToolMeta | undefined {
    const meta = this.metaOf(tool);
    if (meta !== undefined) this.#declared.set(tool.name, meta);
    return meta;
  }

  /** The declaration of a registered tool, by name. */
  declared(name: string): CostToolMeta | undefined {
    return this.#declared.get(name);
  }

  /** The names of the registered tools that declare a cost, in registration order. */
  names(): string[] {
    return [...this.#declared.keys()];
  }

  // Tools sharing a pool count into one counter, so they must agree on its limit and window.
  #checkPool(tool: string, meta: CostToolMeta): void {
    const quota = meta.quota;
    if (quota?.pool === undefined) return;
    const known = this.#pools.get(quota.pool);
    const window = quota.window ?? 'sliding';
    if (known === undefined || known.tool === tool) {
      this.#pools.set(quota.pool, { tool, limit: quota.limit, windowSeconds: quota.window_seconds, window });
      return;
    }
    if (known.limit !== quota.limit || known.windowSeconds !== quota.window_seconds || known.window !== window) {
      throw new ConfigurationError(
        'INVALID_TOOL_META',
        `costServer: tool "${tool}": _meta["${COST_ID}"].quota: pool "${quota.pool}" is declared by "${known.tool}" with limit ${known.limit} per ${known.windowSeconds} s (${known.window}); every tool of a pool must declare the same limit, window_seconds and window`,
      );
    }
  }
}
