/** The transactions suite: the checks of a server that advertises `io.github.mcp-ext/transactions`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure, freshId } from '../assert.js';
import type { ExtensionSuite } from '../types.js';
import { expectMethodError } from './methods.js';
import { recoveryViolations } from './recovery-annotation.js';

export const TRANSACTIONS_ID = 'io.github.mcp-ext/transactions';

/** `@ext/transactions` (SPEC: packages/transactions/SPEC.md). Only its methods are exercised: nothing here runs a tool. */
export const transactionsSuite: ExtensionSuite = {
  extension: 'transactions',
  ids: [TRANSACTIONS_ID],
  spec: 'packages/transactions/SPEC.md',
  checks: [
    {
      id: 'transactions/recovery-annotations',
      requirement: 'TXN-26',
      level: 'MUST',
      title: 'every SEP-3172 recovery annotation has the draft shape and names a tool the server lists',
      async run(ctx) {
        // Raw: the SDK client's listTools() drops annotations its schema does not know.
        const probe = await ctx.connect({ extensions: {} });
        const tools: { name: string; annotations?: unknown }[] = [];
        let cursor: unknown;
        do {
          const page = await probe.rawRequest('tools/list', typeof cursor === 'string' ? { cursor } : {});
          if (Array.isArray(page.tools)) tools.push(...(page.tools as { name: string; annotations?: unknown }[]));
          cursor = page.nextCursor;
        } while (typeof cursor === 'string');
        const declaring = tools.filter((tool) => isRecord(tool.annotations) && 'recovery' in tool.annotations);
        if (declaring.length === 0) ctx.skip('no tool declares annotations.recovery');
        const names = new Set(tools.map((tool) => tool.name));
        const problems = declaring.flatMap((tool) => recoveryViolations(tool, names));
        ensure(problems.length === 0, problems.join('; '));
      },
    },
    {
      id: 'transactions/settings',
      requirement: 'TXN-1',
      level: 'MUST',
      title: 'settings carry integer timeouts and the list of compensable tools',
      run(ctx) {
        const { default_timeout_seconds: timeout, max_timeout_seconds: max, compensable_tools: tools } = ctx.settings;
        ensure(
          Number.isSafeInteger(timeout) && (timeout as number) >= 1,
          `default_timeout_seconds is ${describe(timeout)}`,
        );
        ensure(
          Number.isSafeInteger(max) && (max as number) >= (timeout as number),
          `max_timeout_seconds is ${describe(max)}`,
        );
        ensure(
          Array.isArray(tools) && tools.every((name) => typeof name === 'string'),
          `compensable_tools is ${describe(tools)}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'transactions/begin-status-commit',
      requirement: 'TXN-10',
      level: 'MUST',
      title:
        'begin opens an active transaction, status reports it, commit commits it (and again returns the same outcome)',
      async run(ctx) {
        const probe = await ctx.connect();
        const id = freshId('conformance');
        const begun = await probe.request(`${ctx.id ?? ''}/begin`, {
          transaction_id: id,
          description: 'conformance check',
        });
        ensure(begun.transaction_id === id && begun.status === 'active', `begin answered ${describe(begun)}`);
        ensure(
          typeof begun.expires_at === 'string' && !Number.isNaN(Date.parse(begun.expires_at)),
          `expires_at is ${describe(begun.expires_at)}`,
        );
        const status = await probe.request(`${ctx.id ?? ''}/status`, { transaction_id: id });
        ensure(status.status === 'active', `status answered ${describe(status)}`);
        const committed = await probe.request(`${ctx.id ?? ''}/commit`, { transaction_id: id });
        ensure(
          committed.status === 'committed' && committed.steps_committed === 0,
          `commit answered ${describe(committed)}`,
        );
        const again = await probe.request(`${ctx.id ?? ''}/commit`, { transaction_id: id });
        ensure(
          again.status === 'committed' && again.committed_at === committed.committed_at,
          `a repeated commit answered ${describe(again)}`,
        );
      },
    },
    {
      id: 'transactions/invalid-params',
      requirement: 'TXN-2',
      level: 'MUST',
      title: 'a malformed transaction_id is refused as invalid_input (-32602) with the pointer of the field',
      async run(ctx) {
        const probe = await ctx.connect();
        const data = await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? ''}/begin`,
          { transaction_id: 'not a valid id!' },
          { category: 'invalid_input', code: 'INVALID_INPUT' },
        );
        const details = isRecord(data.details) ? data.details : {};
        ensure(details.pointer === '/params/transaction_id', `details.pointer is ${describe(details.pointer)}`);
      },
    },
    {
      id: 'transactions/duplicate-begin',
      requirement: 'TXN-3',
      level: 'MUST',
      title: 'beginning a transaction id that exists is refused with TRANSACTION_CONFLICT',
      async run(ctx) {
        const probe = await ctx.connect();
        const id = freshId('conformance');
        await probe.request(`${ctx.id ?? ''}/begin`, { transaction_id: id });
        await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? ''}/begin`,
          { transaction_id: id },
          { category: 'permanent', code: 'TRANSACTION_CONFLICT' },
        );
        await probe.request(`${ctx.id ?? ''}/rollback`, { transaction_id: id });
      },
    },
    {
      id: 'transactions/unknown-transaction',
      requirement: 'TXN-11',
      level: 'MUST',
      title: 'status, commit and rollback of an unknown transaction fail with permanent RESOURCE_NOT_FOUND',
      async run(ctx) {
        const probe = await ctx.connect();
        const id = freshId('never-begun');
        for (const verb of ['status', 'commit', 'rollback']) {
          await expectMethodError(
            ctx,
            probe,
            `${ctx.id ?? ''}/${verb}`,
            { transaction_id: id },
            { category: 'permanent', code: 'RESOURCE_NOT_FOUND' },
          );
        }
      },
    },
    {
      id: 'transactions/no-rollback-after-commit',
      requirement: 'TXN-8',
      level: 'MUST',
      title: 'rolling back a committed transaction is refused with TRANSACTION_CONFLICT naming its status',
      async run(ctx) {
        const probe = await ctx.connect();
        const id = freshId('conformance');
        await probe.request(`${ctx.id ?? ''}/begin`, { transaction_id: id });
        await probe.request(`${ctx.id ?? ''}/commit`, { transaction_id: id });
        const refused = await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? ''}/rollback`,
          { transaction_id: id },
          { category: 'permanent', code: 'TRANSACTION_CONFLICT' },
        );
        const details = isRecord(refused.details) ? refused.details : {};
        ensure(details.status === 'committed', `details.status is ${describe(details.status)}`);
      },
    },
  ],
};
