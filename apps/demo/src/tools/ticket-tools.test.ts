/**
 * The ticket tools as a host sees them over real Streamable HTTP: what
 * `tools/list` promises about the destructive tools, what an approved
 * deletion answers, and what a plain MCP client is told when it lacks a scope.
 */
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { IDEMPOTENCY_ID } from '@ext/idempotency';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection, type ConnectOptions, type Era } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const ERAS: readonly Era[] = ['modern', 'legacy'];

function textOf(result: { content: readonly unknown[] }): string {
  const first = result.content[0] as { type?: string; text?: unknown } | undefined;
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : '';
}

describe('the ticket tools over Streamable HTTP', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0 });
  });

  afterAll(async () => {
    await running.close();
  });

  async function withClient<T>(options: ConnectOptions, use: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await connect(running.as(), options);
    try {
      return await use(connection);
    } finally {
      await connection.close();
    }
  }

  /** Creates a ticket, then deletes it with a person's approval, as a client with `features` (none: an agent). */
  async function approvedDelete(era: Era, title: string, features?: readonly string[]) {
    const id = await withClient({ era }, async ({ extended }) => {
      const created = await extended!.callTool('create_ticket', { title });
      return String((created.structuredContent?.ticket as { id: string } | undefined)?.id);
    });
    return withClient({ era, features, extensions: [confirmationClient()] }, async ({ extended }) => {
      const confirm = () => Promise.resolve(true);
      const result = await callWithConfirmation(extended!, 'delete_ticket', { id }, { confirm });
      const after = await extended!.callTool('get_ticket', { id });
      return { id, result, after };
    });
  }

  for (const era of ERAS) {
    describe(`on the ${era} era`, () => {
      it('IDEM-14a: tools/list marks delete_ticket (a repeat deletes nothing new) retry-safe, purge_closed_tickets not', async () => {
        const tools = await withClient(
          { era, withErrors: false },
          async ({ client }) => (await client.listTools()).tools,
        );
        const tool = (name: string) => tools.find((candidate) => candidate.name === name);
        const capable = (name: string): unknown =>
          (tool(name)?._meta?.[IDEMPOTENCY_ID] as Record<string, unknown> | undefined)?.idempotent_capable;
        expect(tool('delete_ticket')?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
        expect(capable('delete_ticket')).toBe(true);
        expect(tool('purge_closed_tickets')?.annotations).toMatchObject({ destructiveHint: true });
        expect(tool('purge_closed_tickets')?.annotations?.idempotentHint).not.toBe(true);
        expect(capable('purge_closed_tickets')).toBe(false);
        expect(capable('create_ticket')).toBe(true);
        expect(capable('get_ticket')).toBe(false);
      });

      it('an approved delete_ticket says the ticket was deleted, to an agent, and shows no status', async () => {
        const { id, result, after } = await approvedDelete(era, 'Obsolete');
        expect(result.isError).not.toBe(true);
        expect(result._meta?.[CONFIRMATION_ID]).toMatchObject({ status: 'confirmed' });
        expect(result.structuredContent).toEqual({ deleted: { id, title: 'Obsolete' } });
        expect(JSON.parse(textOf(result))).toEqual({ deleted: { id, title: 'Obsolete' } });
        expect(textOf(result)).not.toContain('status');
        expect(after.isError).toBe(true);
      });

      it('an approved delete_ticket tells a person in words that the ticket is gone', async () => {
        const { id, result } = await approvedDelete(era, 'Old *draft*', ['human']);
        expect(textOf(result)).toBe(`Deleted ticket **${id}** (Old \\*draft\\*) for good.`);
        expect(textOf(result)).not.toMatch(/open|status/i);
      });

      it('PERM-18: a plain MCP client lacking the admin scope is told what a person can do, not a method it cannot call', async () => {
        const result = await withClient({ era, withErrors: false }, ({ client }) =>
          client.callTool({ name: 'purge_closed_tickets', arguments: {} }),
        );
        expect(result.isError).toBe(true);
        const text = textOf(result);
        expect(text).toContain('Calling purge_closed_tickets needs the scope tickets:admin');
        expect(text).toContain("Ask the server's operator to grant your account tickets:admin");
        expect(text).not.toMatch(/negotiate|io\.github\.mcp-ext/);
      });
    });
  }
});
