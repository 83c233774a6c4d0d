/** Steps 2 to 4 of the tour: a normal call, a structured error, and the same failure for a plain MCP client. */
import type { ToolResult } from '@ext/core';
import { ERRORS_ID, TOOL_FAILURE_KEY } from '@ext/errors';
import { getStructuredError, isRetryable } from '@ext/errors/client';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import type { Connection } from '../client/connect.js';
import { CATEGORY_ADVICE, compact, dig, pretty } from './explain.js';
import { expect, ok, print, row, style } from './output.js';
import { advertised, open, type TourTarget } from './target.js';

const UNKNOWN_ID = 'T-404';

export async function normalCall(connection: Connection): Promise<void> {
  const extended = connection.extended;
  expect(extended !== undefined, 'the tour client has no extensions attached');
  const args = { title: 'Write the onboarding guide', assignee: 'alice' };
  const result = await extended.callTool('create_ticket', args);
  const exchange = connection.wire.exchange('tools/call');
  const envelope = dig(exchange?.request.params, '_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions');
  row('client -> server', `tools/call create_ticket ${compact(args)}`);
  if (envelope !== undefined)
    row('', style.dim(`(with params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions = ${compact(envelope)})`));
  row('server -> client', `structuredContent.ticket ${compact(result.structuredContent?.ticket)}`);
  const ticket = dig(result.structuredContent, 'ticket');
  expect(result.isError !== true, `create_ticket failed: ${compact(result.content)}`);
  expect(
    typeof dig(ticket, 'id') === 'string' && dig(ticket, 'status') === 'open',
    'create_ticket did not return an open ticket',
  );
  expect(dig(result._meta, ERRORS_ID) === undefined, 'a successful result carried an error object');
  ok('a successful call looks exactly as it would without extensions: nothing extra was added to the result.');
}

export async function structuredError(connection: Connection): Promise<void> {
  const extended = connection.extended;
  expect(extended !== undefined, 'the tour client has no extensions attached');
  const result = await extended.callTool('get_ticket', { id: UNKNOWN_ID });
  const onWire = dig(connection.wire.exchange('tools/call')?.response?.result, '_meta', ERRORS_ID);
  row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
  row(
    'server -> client',
    `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}`,
  );
  row('', `_meta["${ERRORS_ID}"]:\n${pretty(onWire, 0)}`);

  const structured = getStructuredError(result);
  expect(result.isError === true, 'get_ticket on an unknown id did not fail');
  expect(structured !== undefined, `the failed result carries no _meta["${ERRORS_ID}"]`);
  expect(
    structured.code === 'RESOURCE_NOT_FOUND' && structured.category === 'permanent',
    `unexpected error ${structured.code} (${structured.category})`,
  );
  print();
  row('what it means', `category "${structured.category}": ${CATEGORY_ADVICE[structured.category]}`);
  row('', `isRetryable(result) = ${String(isRetryable(result))}; suggestion: ${structured.suggestion ?? '(none)'}`);
  row(
    '',
    `user_actionable = ${String(structured.user_actionable ?? false)}: ${structured.user_actionable === true ? 'worth showing to the person, not only to the model' : 'for the client or model to handle'}.`,
  );
  row('how to read it', `getStructuredError(result) from @ext/errors/client returns this object, already validated.`);
  draftToolFailure(dig(connection.wire.exchange('tools/call')?.response?.result, '_meta', TOOL_FAILURE_KEY));
}

/** The same failure in the shape of the draft SEP-3313, beside ours, for hosts that speak that draft. */
function draftToolFailure(onWire: unknown): void {
  print();
  row('the draft too', `_meta["${TOOL_FAILURE_KEY}"] (SEP-3313, ToolFailure):\n${pretty(onWire, 0)}`);
  expect(
    dig(onWire, 'class') === 'capability' && dig(onWire, 'retryable') !== true,
    `the draft ToolFailure is ${compact(onWire)}, not a capability failure that is not retryable`,
  );
  row('', 'the class comes from our category; a client that reads only the draft gets the same answer.');
}

export async function degradation(tour: TourTarget): Promise<void> {
  const plain = await open(tour, { withErrors: false, name: 'plain-client' });
  try {
    const sent = advertised(plain, tour.era);
    const result = (await plain.client.callTool({ name: 'get_ticket', arguments: { id: UNKNOWN_ID } })) as ToolResult;
    row('client advertised', `capabilities.extensions ${compact(sent)}`);
    row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
    row(
      'server -> client',
      `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}\n_meta["${ERRORS_ID}"]: ${compact(dig(result._meta, ERRORS_ID))}`,
    );
    expect(dig(sent, ERRORS_ID) === undefined, 'the plain client advertised the errors extension');
    expect(result.isError === true, 'get_ticket on an unknown id did not fail for the plain client');
    expect(
      dig(result._meta, ERRORS_ID) === undefined,
      'the server sent the structured error to a client that did not ask for it',
    );
    expect(
      String(dig(result.content, '0', 'text')).includes(`${UNKNOWN_ID} does not exist`),
      'the plain error text does not say what went wrong',
    );
    ok('the same failure, as a plain MCP error result: readable text, nothing the client did not ask for.');
  } finally {
    await plain.close();
  }
}
