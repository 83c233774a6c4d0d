/** The root README's quick start, client side: the ticket tracker's client on SDK v2, asking a person on the terminal. */
// #region client
import { createInterface } from 'node:readline/promises';
import { PROTOCOL_VERSIONS, type ToolResult } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { callWithConfirmation, confirmationClient, type ConfirmCallback } from '@ext/confirmation/client';
import { errorsClient, getStructuredError } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient, idempotentCall } from '@ext/idempotency/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = new URL(process.env.MCP_URL ?? 'http://127.0.0.1:3000/mcp');
const apiKey = process.env.API_KEY ?? 'dev-key-change-me';

// Pinned to the 2026-07-28 era: no initialize, capabilities ride in every request (the SDK's default is 2025-11-25).
const client = new Client(
  { name: 'tickets-cli', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: PROTOCOL_VERSIONS.modern } } },
);
const tracker = extendClient(client, [errorsClient(), idempotencyClient(), confirmationClient()]); // before connect
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': apiKey } } }));

// One logical call, one idempotency key: sent again (say, after a lost reply), it is answered, not run again.
const createTicket = idempotentCall(tracker, 'create_ticket', { title: 'Printer on fire' });
const first = await createTicket();
const again = await createTicket();
const ticket = JSON.parse(textOf(first)) as { id: string; title: string };
console.log(`created ${ticket.id}: ${ticket.title}`);
if (getReplayInfo(again)?.was_replay === true && textOf(again) === textOf(first)) {
  console.log(`sent again with key ${createTicket.key}: the replay of the first answer, created once`);
}

// The server holds the deletion until a person says yes; the helper asks, then retries with the approval.
const askPerson: ConfirmCallback = async (request) => {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const question = request.kind === 'call' ? request.message : `Approve ${request.kind}?`;
    return (await terminal.question(`${question} [y/N] `)).trim().toLowerCase() === 'y';
  } finally {
    terminal.close();
  }
};
const deleted = await callWithConfirmation(tracker, 'delete_ticket', { id: ticket.id }, { confirm: askPerson });
console.log(
  deleted.isError === true ? `not deleted: ${getStructuredError(deleted)?.code ?? 'error'}` : textOf(deleted),
);

// A failure arrives structured: a code to branch on and a category that says whether retrying helps.
const lookup = await tracker.callTool('get_ticket', { id: ticket.id });
const error = getStructuredError(lookup);
console.log(
  error === undefined ? `still there: ${textOf(lookup)}` : `${error.code} (${error.category}): ${error.message}`,
);

await client.close();

function textOf(result: ToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
// #endregion client
