/** Typed slots on a call's `ctx.locals`, shared by every copy of a package loaded in one process. */
import type { RequestContext } from '../contract/extension.js';

/** One typed entry of `ctx.locals`. */
export interface LocalSlot<T> {
  /** The value this call holds, or `undefined` when nothing set it. */
  get(ctx: Pick<RequestContext, 'locals'>): T | undefined;
  set(ctx: Pick<RequestContext, 'locals'>, value: T): void;
  delete(ctx: Pick<RequestContext, 'locals'>): void;
}

/**
 * A slot keyed by `Symbol.for("io.github.mcp-ext/<name>")`, so that two
 * copies of one package (a duplicate install) agree on it. `name` is
 * `<package>/<what>`, e.g. `cost/call`.
 */
export function defineLocal<T>(name: string): LocalSlot<T> {
  const key = Symbol.for(`io.github.mcp-ext/${name}`);
  return {
    get: (ctx) => ctx.locals.get(key) as T | undefined,
    set: (ctx, value) => {
      ctx.locals.set(key, value);
    },
    delete: (ctx) => {
      ctx.locals.delete(key);
    },
  };
}
