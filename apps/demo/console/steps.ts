/** The console's step buttons: tool calls as a person makes them, with the confirmation dialog when the server asks. */
import type { Client } from '@modelcontextprotocol/client';
import {
  askPerson,
  CONFIRMATION,
  ERRORS,
  metaOf,
  NEGOTIATION,
  progressBar,
  record,
  text,
  type CallOutcome,
  type Json,
} from './page.js';

/** Calls a tool, running the confirmation token path with the dialog when the server asks for it. */
async function call(
  client: Client,
  name: string,
  args: Json,
  meta: Json = {},
  withProgress = false,
): Promise<CallOutcome> {
  const bar = withProgress ? progressBar() : undefined;
  const options = bar
    ? {
        onprogress: (p: { progress: number; total?: number; message?: string }) => {
          bar.update(p.progress, p.total, p.message);
        },
      }
    : {};
  let result = (await client.callTool({ name, arguments: args, _meta: meta }, options)) as Json;
  const gate = metaOf(result, CONFIRMATION);
  if (gate?.status === 'confirmation_required') {
    const approved = await askPerson(text(gate.message, `Run ${name}?`), text(gate.risk_level, 'reversible'));
    if (!approved)
      return { result, explanation: 'You cancelled: the server never ran the tool, and the token expires unused.' };
    result = await client.callTool(
      { name, arguments: args, _meta: { ...meta, [CONFIRMATION]: { confirmation_token: gate.confirmation_token } } },
      options,
    );
    bar?.done();
    return {
      result,
      explanation:
        'You approved: the client retried with the single-use token bound to this tool, these arguments and you.',
    };
  }
  bar?.done();
  const error = metaOf(result, ERRORS);
  if (error)
    return {
      result,
      explanation: `A structured error: ${text(error.code, 'UNKNOWN')} (${text(error.category, 'unknown')}). ${text(error.suggestion, '')}`,
    };
  return { result, explanation: 'The call succeeded.' };
}

export interface Step {
  readonly label: string;
  readonly tool: string;
  readonly run: (client: Client) => Promise<CallOutcome>;
}

let lastTicket = 'T-1';

function ticketIdOf(result: Json): string | undefined {
  const structured = record(result.structuredContent);
  const ticket = record(structured?.ticket) ?? structured;
  return typeof ticket?.id === 'string' ? ticket.id : undefined;
}

export const STEPS: readonly Step[] = [
  {
    label: 'Create a ticket',
    tool: 'create_ticket',
    run: async (client) => {
      const outcome = await call(client, 'create_ticket', { title: 'Try the console' });
      lastTicket = ticketIdOf(outcome.result) ?? lastTicket;
      return outcome;
    },
  },
  {
    label: 'Read it as an agent (JSON)',
    tool: 'get_ticket',
    run: async (client) => ({
      ...(await call(client, 'get_ticket', { id: lastTicket }, { [NEGOTIATION]: { features: ['agent'] } })),
      explanation: 'The same tool, asked for agent output: structuredContent plus its JSON text.',
    }),
  },
  {
    label: 'Read it as a person (markdown)',
    tool: 'get_ticket',
    run: async (client) => ({
      ...(await call(client, 'get_ticket', { id: lastTicket }, { [NEGOTIATION]: { features: ['human'] } })),
      explanation: 'The same tool, asked for human output: markdown text.',
    }),
  },
  {
    label: 'Delete it (asks you first)',
    tool: 'delete_ticket',
    run: (client) => call(client, 'delete_ticket', { id: lastTicket }),
  },
  {
    label: 'Export a report (progress)',
    tool: 'export_report',
    run: (client) => call(client, 'export_report', {}, {}, true),
  },
  {
    label: 'Ask for a ticket that does not exist',
    tool: 'get_ticket',
    run: (client) => call(client, 'get_ticket', { id: 'T-404' }),
  },
];
