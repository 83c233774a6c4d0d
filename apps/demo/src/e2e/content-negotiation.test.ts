import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { getStructuredError } from '@ext/errors/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection, type Era } from '../client/connect.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';
import { escapeMarkdown, ticketMarkdown, ticketsMarkdown } from '../tools/present.js';
import type { Ticket } from '../domain/ticket.js';

const ERAS: readonly Era[] = ['modern', 'legacy'];

describe('the tracker answers agents with JSON and people with markdown, from the same handlers', () => {
  let running: RunningHttpServer;

  beforeAll(async () => {
    running = await startHttpServer({ port: 0 });
  });

  afterAll(async () => {
    await running.close();
  });

  async function withClient<T>(
    era: Era,
    features: readonly string[] | undefined,
    use: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    const connection = await connect(running.as(), { era, features });
    try {
      return await use(connection);
    } finally {
      await connection.close();
    }
  }

  for (const era of ERAS) {
    describe(`on the ${era} era`, () => {
      let ticket: Ticket;

      beforeAll(async () => {
        ticket = await withClient(era, ['agent'], async ({ extended }) => {
          const created = await extended!.callTool('create_ticket', {
            title: `Ship *markdown* on ${era}`,
            assignee: 'alice',
          });
          return created.structuredContent?.ticket as Ticket;
        });
      });

      it('get_ticket: an agent gets structuredContent and its JSON text', async () => {
        await withClient(era, ['agent'], async ({ extended }) => {
          expect(extended!.negotiated(CONTENT_NEGOTIATION_ID)?.id).toBe(CONTENT_NEGOTIATION_ID);
          const result = await extended!.callTool('get_ticket', { id: ticket.id });
          expect(result.structuredContent).toEqual({ ticket });
          expect(JSON.parse(String(result.content[0]?.text))).toEqual({ ticket });
          expect(getAppliedFeatures(result)).toMatchObject({ format: 'json', verbosity: 'standard' });
        });
      });

      it('get_ticket: a person gets markdown, with the title escaped, and no structuredContent', async () => {
        await withClient(era, ['human'], async ({ extended }) => {
          const result = await extended!.callTool('get_ticket', { id: ticket.id });
          expect(result.structuredContent).toBeUndefined();
          expect(result.content).toEqual([{ type: 'text', text: ticketMarkdown({ ticket }, 'standard') }]);
          expect(String(result.content[0]?.text)).toContain(`### ${ticket.id}: ${escapeMarkdown(ticket.title)}`);
          expect(getAppliedFeatures(result)).toMatchObject({ format: 'markdown', verbosity: 'standard' });
        });
      });

      it('list_tickets: an agent gets the list as JSON, a person a markdown table', async () => {
        const agent = await withClient(era, ['agent'], ({ extended }) =>
          extended!.callTool('list_tickets', { status: 'open' }),
        );
        const tickets = agent.structuredContent?.tickets as Ticket[];
        expect(tickets.map((entry) => entry.id)).toContain(ticket.id);
        const human = await withClient(era, ['human', 'verbosity=verbose'], ({ extended }) =>
          extended!.callTool('list_tickets', { status: 'open' }),
        );
        expect(human.content).toEqual([{ type: 'text', text: ticketsMarkdown({ tickets }, 'verbose') }]);
        expect(String(human.content[0]?.text)).toMatch(
          /^\d+ tickets?\n\n\| Id \| Title \| Status \| Assignee \| Created \| Closed \|/,
        );
      });

      it('a person can ask for JSON for one call, and an agent for markdown', async () => {
        await withClient(era, ['human'], async ({ extended }) => {
          const result = await extended!.callTool(
            'get_ticket',
            { id: ticket.id },
            { meta: overrideFeatures(['format=json']) },
          );
          expect(result.structuredContent).toEqual({ ticket });
        });
        await withClient(era, ['agent'], async ({ extended }) => {
          const result = await extended!.callTool(
            'get_ticket',
            { id: ticket.id },
            { meta: overrideFeatures(['human', 'verbosity=compact']) },
          );
          expect(result.content).toEqual([{ type: 'text', text: ticketMarkdown({ ticket }, 'compact') }]);
        });
      });

      it('a failure reads as markdown for a person and as JSON for an agent', async () => {
        const human = await withClient(era, ['human'], ({ extended }) =>
          extended!.callTool('get_ticket', { id: 'T-99999' }),
        );
        expect(human.content).toEqual([
          {
            type: 'text',
            text: '**Error:** Ticket T-99999 does not exist.\n\n**Suggestion:** Call list_tickets to see the ids of existing tickets.',
          },
        ]);
        expect(getStructuredError(human)?.code).toBe('RESOURCE_NOT_FOUND');
        const agent = await withClient(era, ['agent'], ({ extended }) =>
          extended!.callTool('get_ticket', { id: 'T-99999' }),
        );
        expect(JSON.parse(String(agent.content[0]?.text))).toEqual({ error: getStructuredError(agent) });
      });

      it('a client without the extension gets the default shape (JSON) and no echo', async () => {
        await withClient(era, undefined, async ({ extended }) => {
          const result = await extended!.callTool('get_ticket', { id: ticket.id });
          expect(result.structuredContent).toEqual({ ticket });
          expect(result._meta?.[CONTENT_NEGOTIATION_ID]).toBeUndefined();
        });
      });
    });
  }
});
