/** Step 6 of the tour: session state remembers a caller's view in a sealed token the client replays. */
import { SESSION_STATE_ID } from '@ext/session-state';
import { getSessionStateMeta, sessionStateClient } from '@ext/session-state/client';
import { compact, dig, shorten } from './explain.js';
import { expect, ok, print, row, style } from './output.js';
import { open, type TourTarget } from './target.js';

/** A sealed token the server hands out and the client replays; the server keeps nothing per session. */
export async function sessionStateStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [sessionStateClient()], name: 'remembering-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the remembering client has no extensions attached');
    const open1 = await client.callTool('create_ticket', { title: 'Plan the sprint' });
    const done = await client.callTool('create_ticket', { title: 'Book the room' });
    await client.callTool('close_ticket', { id: String(dig(done.structuredContent, 'ticket', 'id')) });
    const chosen = await client.callTool('set_view', { status: 'open' });
    const issued = getSessionStateMeta(chosen);
    const issuedToken = dig(issued, 'session_state');
    row('client -> server', `tools/call set_view ${compact({ status: 'open' })}`);
    row(
      'server -> client',
      `_meta["${SESSION_STATE_ID}"].session_state = ${typeof issuedToken === 'string' ? shorten(issuedToken) : '(none)'}`,
    );
    row('', style.dim("(sealed with the server's key: the client cannot read or alter it)"));
    const listed = await client.callTool('list_tickets');
    const replayed = dig(
      connection.wire.exchange('tools/call')?.request.params,
      '_meta',
      SESSION_STATE_ID,
      'session_state',
    );
    row(
      'client -> server',
      `tools/call list_tickets {} with _meta["${SESSION_STATE_ID}"].session_state = ${typeof replayed === 'string' ? shorten(replayed) : '(none)'}`,
    );
    const tickets = dig(listed.structuredContent, 'tickets');
    const shown = Array.isArray(tickets)
      ? tickets.map((ticket) => ({ id: String(dig(ticket, 'id')), status: String(dig(ticket, 'status')) }))
      : [];
    const closedId = String(dig(done.structuredContent, 'ticket', 'id'));
    row(
      'server -> client',
      `tickets ${compact(shown.map((ticket) => `${ticket.id} (${ticket.status})`))}: open ones only; ${closedId}, closed, is left out`,
    );
    expect(
      typeof issuedToken === 'string' && replayed === issuedToken,
      'the client did not replay the token the server issued',
    );
    expect(
      shown.every((ticket) => ticket.status === 'open') &&
        shown.some((ticket) => ticket.id === dig(open1.structuredContent, 'ticket', 'id')),
      `list_tickets did not apply the remembered view: ${compact(shown)}`,
    );
    print();
    ok('the server remembered "open" for this caller without keeping a session: the state travels, sealed, in _meta.');
  } finally {
    await connection.close();
  }
}
