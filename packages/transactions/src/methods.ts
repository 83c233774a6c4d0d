/** The extension's JSON-RPC methods, `<id>/begin|commit|rollback|status`: each checks its params and asks the engine. */
import type { RequestContext } from '@ext/core';
import type { TransactionEngine } from './engine.js';
import { parseInput } from './input.js';
import { BeginParams, CommitParams, RollbackParams, StatusParams } from './schema.js';
import type { Sweeper } from './sweeper.js';

/** The four method handlers; each makes sure the sweeper runs for the request's store. */
export function transactionMethods(engine: TransactionEngine, sweeper: Sweeper) {
  return {
    begin: async (params: Record<string, unknown>, ctx: RequestContext) => {
      sweeper.ensure(ctx.store, ctx.logger);
      return engine.begin(ctx.store, ctx.principal, parseInput(BeginParams, params, '/params'));
    },
    commit: async (params: Record<string, unknown>, ctx: RequestContext) => {
      sweeper.ensure(ctx.store, ctx.logger);
      const { transaction_id } = parseInput(CommitParams, params, '/params');
      return engine.commit(ctx.store, ctx.principal, transaction_id, ctx.logger);
    },
    rollback: async (params: Record<string, unknown>, ctx: RequestContext) => {
      sweeper.ensure(ctx.store, ctx.logger);
      const { transaction_id, reason } = parseInput(RollbackParams, params, '/params');
      return engine.rollbackForClient(ctx.store, ctx.principal, transaction_id, reason, ctx.logger);
    },
    status: async (params: Record<string, unknown>, ctx: RequestContext) => {
      sweeper.ensure(ctx.store, ctx.logger);
      const { transaction_id } = parseInput(StatusParams, params, '/params');
      return engine.status(ctx.store, ctx.principal, transaction_id, ctx.logger);
    },
  };
}
