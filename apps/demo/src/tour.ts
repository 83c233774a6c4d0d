#!/usr/bin/env node
/**
 * A guided tour for newcomers: starts the tracker (Streamable HTTP in this
 * process, or with `--stdio` the stdio server as a child; `--sdk v1` picks
 * the server built on the v1 SDK), then scripted clients show each extension in
 * turn: what the client sent, what came back, and what it means.
 * Exits 0 when every step behaved as described, 1 otherwise.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ComposedServer, ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_EXTENSION_ID } from '@ext/content-negotiation';
import { getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { COST_ID } from '@ext/cost';
import { costClient, costGuard, getCostInfo } from '@ext/cost/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { INTENT_ID } from '@ext/intent';
import { callWithIntent, intentClient } from '@ext/intent/client';
import { PERMISSIONS_ID } from '@ext/permissions';
import { negotiateScopes, permissionsClient, preflight } from '@ext/permissions/client';
import { PROVENANCE_ID } from '@ext/provenance';
import { citation, getProvenance, provenanceClient } from '@ext/provenance/client';
import { SESSION_STATE_ID } from '@ext/session-state';
import { getSessionStateMeta, sessionStateClient } from '@ext/session-state/client';
import { STREAMING_ID } from '@ext/streaming';
import { streamCall, streamingClient } from '@ext/streaming/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { ERRORS_EXTENSION_ID, ERRORS_PACKAGE_NAME } from '@ext/errors';
import { getStructuredError, isRetryable } from '@ext/errors/client';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { connect, MODERN_PROTOCOL_VERSION, type Connection, type ConnectOptions, type Era, type Target } from './connect.js';
import { CATEGORY_ADVICE, compact, dig, pretty, progressBar, shorten, styles } from './explain.js';
import { resolveSdk, startHttpServer, type RunningHttpServer } from './node-http.js';
import { parseCsv } from './report.js';
import { ADMIN_SCOPE, composeTracker, exportPaceFrom } from './server.js';
import { EXPORT_QUOTA } from './tools.js';

const UNKNOWN_ID = 'T-404';
const LABEL_WIDTH = 18;

class UnexpectedOutcome extends Error {}

function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new UnexpectedOutcome(what);
}

const style = styles(process.stdout.isTTY && process.env.NO_COLOR === undefined);

function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

function section(title: string, explanation: string): void {
  print();
  print(style.bold(style.cyan(`== ${title} ==`)));
  print(style.dim(explanation));
}

/** `label   text`, with continuation lines aligned under the text. */
function row(label: string, text: string): void {
  const pad = ' '.repeat(LABEL_WIDTH + 2);
  print(`  ${style.bold(label.padEnd(LABEL_WIDTH))}${text.split('\n').join(`\n${pad}`)}`);
}

function ok(text: string): void {
  print(`  ${style.green('ok')} ${text}`);
}

/** Where the tour's clients connect, and on which protocol era (v1 speaks only the legacy one). */
interface TourTarget {
  readonly target: Target;
  readonly era: Era;
  readonly sdk: 'v1' | 'v2';
}

function open(tour: TourTarget, options: Omit<ConnectOptions, 'era'>): Promise<Connection> {
  return connect(tour.target, { ...options, era: tour.era });
}

/** What a client advertised in `capabilities.extensions`, read off the wire. */
function advertised(connection: Connection, era: Era): unknown {
  if (era === 'legacy') return dig(connection.wire.exchange('initialize')?.request.params, 'capabilities', 'extensions');
  return dig(connection.wire.exchange('server/discover')?.request.params, '_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions');
}

/** Step 1, for one era: what each side advertised, read off the wire, and what the client negotiated. */
async function negotiation(target: Target, era: Era): Promise<Connection> {
  const connection = await connect(target, { era, withErrors: true });
  const handshake = era === 'modern' ? 'server/discover' : 'initialize';
  const exchange = connection.wire.exchange(handshake);
  expect(exchange !== undefined, `the client did not send ${handshake}`);
  const sentPath = era === 'modern' ? ['_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions'] : ['capabilities', 'extensions'];
  const sent = dig(exchange.request.params, ...sentPath);
  const received = dig(exchange.response?.result, 'capabilities', 'extensions');
  const negotiated = connection.extended?.negotiated(ERRORS_PACKAGE_NAME);

  print();
  print(
    era === 'modern'
      ? style.bold(`  Protocol ${MODERN_PROTOCOL_VERSION}: no initialize; the client repeats its capabilities in every request's _meta`)
      : style.bold(`  Legacy era (${String(dig(exchange.response?.result, 'protocolVersion'))}): capabilities are exchanged once, in initialize`),
  );
  const sentWhere = era === 'modern' ? `params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions` : 'params.capabilities.extensions';
  row('client -> server', `${handshake}\n${sentWhere}\n${compact(sent)}`);
  row('server -> client', `result.capabilities.extensions\n${compact(received)}`);
  row('negotiated', negotiated ? `${ERRORS_PACKAGE_NAME} as ${negotiated.id} (settings ${compact(negotiated.settings)})` : 'nothing');

  expect(dig(sent, ERRORS_EXTENSION_ID) !== undefined, `the client did not advertise ${ERRORS_EXTENSION_ID} on the ${era} era`);
  expect(dig(received, ERRORS_EXTENSION_ID) !== undefined, `the server did not advertise ${ERRORS_EXTENSION_ID} on the ${era} era`);
  expect(negotiated?.id === ERRORS_EXTENSION_ID, `${ERRORS_PACKAGE_NAME} was not negotiated on the ${era} era`);
  expect(connection.extended?.era === era, `the client ended up on the ${String(connection.extended?.era)} era, not ${era}`);
  return connection;
}

function pipeline(composed: ComposedServer, where: string): void {
  print();
  print(style.bold(`  The server's tool-call pipeline (${where}), outermost first:`));
  print(composed.describe().split('\n').map((line) => `    ${line.trimEnd()}`).join('\n'));
  print(style.dim('  @ext/core fixes this order, whatever order the extensions are listed in: checks that refuse a call run before anything with effects.'));
  expect(composed.pipeline[0]?.stage === 'errors', 'errors is not the outermost stage of the pipeline');
}

async function normalCall(connection: Connection): Promise<void> {
  const extended = connection.extended;
  expect(extended !== undefined, 'the tour client has no extensions attached');
  const args = { title: 'Write the onboarding guide', assignee: 'alice' };
  const result = await extended.callTool('create_ticket', args);
  const exchange = connection.wire.exchange('tools/call');
  const envelope = dig(exchange?.request.params, '_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions');
  row('client -> server', `tools/call create_ticket ${compact(args)}`);
  if (envelope !== undefined) row('', style.dim(`(with params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions = ${compact(envelope)})`));
  row('server -> client', `structuredContent.ticket ${compact(result.structuredContent?.ticket)}`);
  const ticket = dig(result.structuredContent, 'ticket');
  expect(result.isError !== true, `create_ticket failed: ${compact(result.content)}`);
  expect(typeof dig(ticket, 'id') === 'string' && dig(ticket, 'status') === 'open', 'create_ticket did not return an open ticket');
  expect(dig(result._meta, ERRORS_EXTENSION_ID) === undefined, 'a successful result carried an error object');
  ok('a successful call looks exactly as it would without extensions: nothing extra was added to the result.');
}

async function structuredError(connection: Connection): Promise<void> {
  const extended = connection.extended;
  expect(extended !== undefined, 'the tour client has no extensions attached');
  const result = await extended.callTool('get_ticket', { id: UNKNOWN_ID });
  const onWire = dig(connection.wire.exchange('tools/call')?.response?.result, '_meta', ERRORS_EXTENSION_ID);
  row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
  row('server -> client', `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}`);
  row('', `_meta["${ERRORS_EXTENSION_ID}"]:\n${pretty(onWire, 0)}`);

  const structured = getStructuredError(result);
  expect(result.isError === true, 'get_ticket on an unknown id did not fail');
  expect(structured !== undefined, `the failed result carries no _meta["${ERRORS_EXTENSION_ID}"]`);
  expect(structured.code === 'RESOURCE_NOT_FOUND' && structured.category === 'permanent', `unexpected error ${structured.code} (${structured.category})`);
  print();
  row('what it means', `category "${structured.category}": ${CATEGORY_ADVICE[structured.category]}`);
  row('', `isRetryable(result) = ${String(isRetryable(result))}; suggestion: ${structured.suggestion ?? '(none)'}`);
  row('', `user_actionable = ${String(structured.user_actionable ?? false)}: ${structured.user_actionable === true ? 'worth showing to the person, not only to the model' : 'for the client or model to handle'}.`);
  row('how to read it', `getStructuredError(result) from @ext/errors/client returns this object, already validated.`);
}

async function degradation(tour: TourTarget): Promise<void> {
  const plain = await open(tour, { withErrors: false, name: 'plain-client' });
  try {
    const sent = advertised(plain, tour.era);
    const result = (await plain.client.callTool({ name: 'get_ticket', arguments: { id: UNKNOWN_ID } })) as ToolResult;
    row('client advertised', `capabilities.extensions ${compact(sent)}`);
    row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
    row('server -> client', `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}\n_meta["${ERRORS_EXTENSION_ID}"]: ${compact(dig(result._meta, ERRORS_EXTENSION_ID))}`);
    expect(dig(sent, ERRORS_EXTENSION_ID) === undefined, 'the plain client advertised the errors extension');
    expect(result.isError === true, 'get_ticket on an unknown id did not fail for the plain client');
    expect(dig(result._meta, ERRORS_EXTENSION_ID) === undefined, 'the server sent the structured error to a client that did not ask for it');
    expect(String(dig(result.content, '0', 'text')).includes(`${UNKNOWN_ID} does not exist`), 'the plain error text does not say what went wrong');
    ok('the same failure, as a plain MCP error result: readable text, nothing the client did not ask for.');
  } finally {
    await plain.close();
  }
}

/** One ticket, fetched by an agent and by a person: the same handler renders it twice. */
async function contentNegotiation(tour: TourTarget): Promise<void> {
  const audiences = [
    { label: 'agent', features: ['agent'] },
    { label: 'person', features: ['human'] },
  ] as const;
  const results: ToolResult[] = [];
  for (const { label, features } of audiences) {
    // Over stdio each client spawns its own server, so each creates the ticket it then reads.
    const connection = await open(tour, { withErrors: false, features, name: `${label}-client` });
    try {
      const extended = connection.extended;
      expect(extended !== undefined, 'the content-negotiation client has no extensions attached');
      // The tour needs the new id as data whoever asks: a per-call override asks for JSON.
      const created = await extended.callTool('create_ticket', { title: 'Render me twice', assignee: 'bob' }, { meta: overrideFeatures(['format=json']) });
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      const result = await extended.callTool('get_ticket', { id });
      const sent = dig(advertised(connection, tour.era), CONTENT_NEGOTIATION_EXTENSION_ID);
      print();
      row(`${label} client`, `declares ${compact(sent)}
tools/call get_ticket ${compact({ id })}`);
      const structured = result.structuredContent === undefined ? 'no structuredContent' : `structuredContent ${compact(result.structuredContent)}`;
      row('server -> client', `${structured}\ncontent[0].text:\n${String(dig(result.content, '0', 'text'))}`);
      row('', `_meta["${CONTENT_NEGOTIATION_EXTENSION_ID}"] ${compact(dig(result._meta, CONTENT_NEGOTIATION_EXTENSION_ID))}`);
      results.push(result);
    } finally {
      await connection.close();
    }
  }
  const [forAgent, forPerson] = results;
  expect(getAppliedFeatures(forAgent)?.format === 'json' && dig(forAgent?.structuredContent, 'ticket', 'title') === 'Render me twice', 'the agent did not get the ticket as JSON');
  expect(getAppliedFeatures(forPerson)?.format === 'markdown' && forPerson?.structuredContent === undefined, 'the person did not get markdown');
  expect(String(dig(forPerson?.content, '0', 'text')).startsWith('### '), 'the markdown does not start with a heading');
  print();
  ok('one handler, two renderings: render(ctx, { data, markdown }) picked JSON for the agent and markdown for the person; each result names what it applied.');
}

/** A destructive call: the server holds it for a person's approval, bound to these arguments. */
async function confirmation(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [confirmationClient()], name: 'confirming-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the confirming client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Obsolete' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const asked: string[] = [];
    const result = await callWithConfirmation(client, 'delete_ticket', { id }, {
      confirm: (request) => {
        if (request.kind === 'call') {
          asked.push(request.message);
          row('server -> client', `confirmation_required (${request.risk_level}): "${request.message}"`);
          row('person', 'approves (the tour answers yes for you)');
        }
        return Promise.resolve(true);
      },
    });
    expect(asked.length === 1, 'the server did not ask before deleting');
    expect(dig(result._meta, CONFIRMATION_ID, 'status') === 'confirmed', 'the approved call did not run');
    row('client -> server', 'the same call again, with the single-use confirmation_token');
    row('server -> client', compact(dig(result._meta, CONFIRMATION_ID)));
    print();
    ok('nothing ran until a person said yes; the token works once, for these arguments and this caller only.');
  } finally {
    await connection.close();
  }
}

/** Create, link, post: the post fails, and the saga undoes the first two steps. */
async function saga(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [idempotencyClient(), transactionsClient()], name: 'saga-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the saga client has no extensions attached');
    const outcome = await runSaga([
      { client, server: 'tracker', tool: 'create_ticket', arguments: { title: 'Release 2.0' } },
      { client, server: 'tracker', tool: 'link_document', arguments: (previous) => ({ id: String(dig(previous[0]?.structuredContent, 'ticket', 'id')), url: 'https://docs.example.com/release-2' }) },
      { client, server: 'tracker', tool: 'post_message', arguments: { channel: 'archive', text: 'Release 2.0 is out' } },
    ]);
    expect(outcome.status !== 'committed', 'the saga committed although the post failed');
    const participant = outcome.participants[0];
    row('steps', 'create_ticket ok, link_document ok, post_message to #archive: CHANNEL_ARCHIVED');
    row('rollback', compact(participant?.steps_compensated));
    expect(participant?.status === 'rolled_back', `the saga ended ${String(participant?.status)}`);
    print();
    ok('the failed post rolled the transaction back: the link and the ticket were undone, newest first, by server-side compensations.');
  } finally {
    await connection.close();
  }
}

/** A read that says where its data came from, with a digest the client checks. */
async function provenance(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [provenanceClient()], name: 'citing-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the citing client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Cite me' });
    const result = await client.callTool('get_ticket', { id: String(dig(created.structuredContent, 'ticket', 'id')) });
    const found = getProvenance(result);
    expect(found?.digest === 'verified', 'the provenance digest did not verify');
    row('server -> client', `_meta["${PROVENANCE_ID}"] ${compact(dig(result._meta, PROVENANCE_ID))}`);
    row('citation', found.sources.map((source) => citation(source, 'Ticket "Cite me"')).join('; '));
    print();
    ok('the result names its source; the digest matches the structuredContent the client received.');
  } finally {
    await connection.close();
  }
}

/** A sealed token the server hands out and the client replays; the server keeps nothing per session. */
async function sessionStateStep(tour: TourTarget): Promise<void> {
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
    row('server -> client', `_meta["${SESSION_STATE_ID}"].session_state = ${typeof issuedToken === 'string' ? shorten(issuedToken) : '(none)'}`);
    row('', style.dim('(sealed with the server\'s key: the client cannot read or alter it)'));
    const listed = await client.callTool('list_tickets');
    const replayed = dig(connection.wire.exchange('tools/call')?.request.params, '_meta', SESSION_STATE_ID, 'session_state');
    row('client -> server', `tools/call list_tickets {} with _meta["${SESSION_STATE_ID}"].session_state = ${typeof replayed === 'string' ? shorten(replayed) : '(none)'}`);
    const tickets = dig(listed.structuredContent, 'tickets');
    const shown = Array.isArray(tickets) ? tickets.map((ticket) => ({ id: String(dig(ticket, 'id')), status: String(dig(ticket, 'status')) })) : [];
    const closedId = String(dig(done.structuredContent, 'ticket', 'id'));
    row('server -> client', `tickets ${compact(shown.map((ticket) => `${ticket.id} (${ticket.status})`))}: open ones only; ${closedId}, closed, is left out`);
    expect(typeof issuedToken === 'string' && replayed === issuedToken, 'the client did not replay the token the server issued');
    expect(shown.every((ticket) => ticket.status === 'open') && shown.some((ticket) => ticket.id === dig(open1.structuredContent, 'ticket', 'id')), `list_tickets did not apply the remembered view: ${compact(shown)}`);
    print();
    ok('the server remembered "open" for this caller without keeping a session: the state travels, sealed, in _meta.');
  } finally {
    await connection.close();
  }
}

/** A tool that needs a scope nobody is granted automatically: asked about, negotiated, refused. */
async function permissions(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [permissionsClient()], name: 'permissions-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the permissions client has no extensions attached');
    const check = await preflight(client, 'purge_closed_tickets');
    row('client -> server', `${PERMISSIONS_ID}/check ${compact({ tool: 'purge_closed_tickets' })}`);
    row('server -> client', compact(check));
    expect(check?.allowed === false && check.missing_scopes?.includes(ADMIN_SCOPE) === true, `preflight did not name the missing ${ADMIN_SCOPE} scope`);
    const answer = await negotiateScopes(client, [ADMIN_SCOPE], { justification: 'tidy up the board' });
    row('client -> server', `${PERMISSIONS_ID}/negotiate ${compact({ requested_scopes: [ADMIN_SCOPE], justification: 'tidy up the board' })}`);
    row('server -> client', `granted ${compact(answer?.granted_scopes)}, denied ${compact(answer?.denied_scopes)}`);
    expect(answer?.denied_scopes?.some((denied) => denied.scope === ADMIN_SCOPE) === true, `${ADMIN_SCOPE} was granted automatically`);
    const result = await client.callTool('purge_closed_tickets');
    const refused = getStructuredError(result);
    row('client -> server', 'tools/call purge_closed_tickets {} anyway');
    row('server -> client', `${String(refused?.code)} (${String(refused?.category)}): ${String(refused?.message)}`);
    expect(refused?.code === 'SCOPE_INSUFFICIENT' && refused.category === 'auth_required', 'the admin tool was not refused for want of its scope');
    print();
    row('what it means', `category "auth_required": ${CATEGORY_ADVICE.auth_required}`);
    ok('the client learned beforehand that it may not purge, and the server refused the call before the tool ran.');
  } finally {
    await connection.close();
  }
}

/** The client says why it calls; the server points it to a better tool. */
async function intent(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [intentClient()], name: 'intent-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the intent client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Triage the inbox' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const why = 'show me all open tickets';
    const outcome = await callWithIntent(client, 'get_ticket', { id }, why, { policy: 'log' });
    row('client -> server', `tools/call get_ticket ${compact({ id })} with _meta["${INTENT_ID}"] ${compact({ intent: why })}`);
    row('server -> client', `the ticket, and _meta["${INTENT_ID}"] ${compact(outcome.suggestion)}`);
    expect(outcome.result.isError !== true, 'the advisory call did not run');
    expect(outcome.suggestion?.suggestion.recommended_tool === 'list_tickets', 'the server did not suggest list_tickets');
    print();
    ok('advisory mode: the call still ran, and the agent learned that list_tickets answers what it wants; following it is the host\'s policy.');
  } finally {
    await connection.close();
  }
}

/** A long call that streams its rows with progress, metered against an hourly quota. */
async function exportReport(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [streamingClient(), costClient()], name: 'exporting-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the exporting client has no extensions attached');
    const titles = ['Draft the roadmap', 'Fix the login bug', 'Review "pricing, v2"', 'Update the changelog', 'Answer support mail', 'Renew certificates', 'Clean up the backlog', 'Prepare the demo'];
    for (const [index, title] of titles.entries()) await client.callTool('create_ticket', { title, assignee: index % 2 === 0 ? 'alice' : 'bob' });
    const guard = costGuard(client, { budget: { exports: 2 } });
    const described = await guard.describe('export_report', { subject: 'this export' });
    row('before the call', described ?? '(no cost declared)');
    row('client -> server', `tools/call export_report {} with _meta["${STREAMING_ID}"].operation_id`);
    const rows: string[] = [];
    let updates = 0;
    let result: ToolResult | undefined;
    const live = process.stdout.isTTY;
    const draw = (fraction: number, message: string): void => {
      if (!live) return;
      process.stdout.write(`\r  ${style.bold('progress'.padEnd(LABEL_WIDTH))}${progressBar(fraction)} ${message.padEnd(16)}`);
    };
    let last = { fraction: 0, message: '' };
    for await (const update of streamCall(client, 'export_report', {}, { timeoutMs: 120_000 })) {
      if (update.type === 'progress' && update.operation_id !== undefined) {
        updates += 1;
        last = { fraction: update.progress ?? last.fraction, message: update.message ?? '' };
        draw(last.fraction, last.message);
      } else if (update.type === 'stream_chunk') {
        rows.push(String(update.data));
      } else if (update.type === 'result') {
        result = update.result;
      }
    }
    // On a terminal the bar was redrawn in place; elsewhere it is printed once, at the end.
    if (live && updates > 0) process.stdout.write('\n');
    else row('progress', `${progressBar(last.fraction)} ${last.message}`);
    expect(result !== undefined && result.isError !== true, `export_report failed: ${compact(result?.content)}`);
    const report = dig(result.structuredContent, 'report');
    const records = parseCsv(rows.map((line) => `${line}\r\n`).join(''));
    row('server -> client', `${String(updates)} progress notifications, ${String(rows.length)} stream_chunk notifications (the CSV header, then a row each)`);
    row('first rows', rows.slice(0, 3).join('\n'));
    row('result', `report ${String(dig(report, 'id'))}: ${String(dig(report, 'rows'))} rows, ${String(dig(report, 'bytes'))} bytes`);
    const cost = getCostInfo(result);
    row('', `_meta["${COST_ID}"] ${compact(cost)}`);
    const exported = Number(dig(report, 'rows'));
    expect(exported >= titles.length && rows.length === exported + 1 && records.length === rows.length, 'the export did not stream a header and one row per ticket');
    expect(dig(report, 'csv') === rows.map((line) => `${line}\r\n`).join(''), 'the streamed rows are not the report the result holds');
    expect(updates === exported && last.fraction === 1, 'the export did not report progress up to 100%');
    expect(cost?.units_used === 1 && cost.quota?.remaining === EXPORT_QUOTA - 1, 'the export was not metered against its quota');
    print();
    row('what it means', `rows arrived in order while the export ran; the call used 1 of ${String(EXPORT_QUOTA)} exports this hour (a 6th is refused with QUOTA_EXHAUSTED, rate_limited, retry after the window).`);
    ok('streaming showed the work as it happened; cost told the client what it spent and what is left.');
  } finally {
    await connection.close();
  }
}

async function tour(tour: TourTarget, composed: ComposedServer, where: string): Promise<void> {
  const eraNote = tour.sdk === 'v1' ? ' The v1 SDK speaks the 2025 protocol only, so every client below uses initialize.' : '';
  section('1. Negotiation', `SEP-2133: each side lists the extensions it speaks in capabilities.extensions; one is used only when both list it.${eraNote}`);
  const main = await negotiation(tour.target, tour.era);
  try {
    if (tour.era === 'modern') {
      const legacy = await negotiation(tour.target, 'legacy');
      await legacy.close();
    }
    pipeline(composed, where);

    const protocol = tour.era === 'modern' ? `protocol ${MODERN_PROTOCOL_VERSION}` : 'legacy era';
    section('2. A normal call', `A client with ${ERRORS_PACKAGE_NAME} calls a tool that succeeds (${protocol}).`);
    await normalCall(main);

    section('3. A structured error', `get_ticket with an id that does not exist. The errors extension turns the thrown error into data a client can act on.`);
    await structuredError(main);
  } finally {
    await main.close();
  }

  section('4. Degradation', `The same call from a plain MCP client that does not advertise ${ERRORS_EXTENSION_ID}.`);
  await degradation(tour);

  section('5. Content negotiation', 'An agent declares the feature tag "agent", a person\'s client "human"; both call get_ticket.');
  await contentNegotiation(tour);

  section('6. Session state', 'set_view remembers which tickets list_tickets shows this caller.');
  await sessionStateStep(tour);

  section('7. Permissions', `purge_closed_tickets needs the ${ADMIN_SCOPE} scope, which is never granted automatically.`);
  await permissions(tour);

  section('8. Intent', 'An agent reads one ticket while it wants them all, and says so.');
  await intent(tour);

  section('9. Confirmation', 'delete_ticket is destructive: the server holds the call until a person approves it.');
  await confirmation(tour);

  section('10. A saga', 'Create a ticket, link a document, post to chat, as one transaction; the post goes to an archived channel.');
  await saga(tour);

  section('11. Provenance', 'get_ticket cites where its data came from.');
  await provenance(tour);

  section('12. Streaming and cost', 'export_report writes a CSV of every ticket, row by row; it is metered: a few exports per caller per hour.');
  await exportReport(tour);
}

const SDK_NAMES = { v1: 'SDK v1 (@modelcontextprotocol/sdk)', v2: 'SDK v2 (@modelcontextprotocol/server)' } as const;

/** The extensions that exist as packages but are not in the demo yet (see the README). */
const NOT_WIRED_IN = ['manifest', 'data-references', 'multimodal', 'events', 'discovery'];

async function main(): Promise<number> {
  // `node dist/tour.js | head` closes the pipe early; that is the reader's choice, not a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  let sdk: 'v1' | 'v2';
  try {
    sdk = resolveSdk(process.argv.slice(2));
  } catch (error) {
    console.error(`tour: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const useStdio = process.argv.includes('--stdio');
  let running: RunningHttpServer | undefined;
  let target: Target;
  let composed: ComposedServer;
  let where: string;
  if (useStdio) {
    const entry = sdk === 'v1' ? './stdio-v1.js' : './stdio.js';
    // A throwaway database, so every tour starts from an empty tracker.
    target = { kind: 'stdio', command: process.execPath, args: [fileURLToPath(new URL(entry, import.meta.url))], env: { TRACKER_DB: ':memory:', REDIS_URL: '' } };
    // The stdio server runs in its own process; this is the same composition its code builds.
    composed = composeTracker();
    where = 'as composed by the stdio server';
    print(style.bold(`Project tracker tour: MCP extensions over stdio, on ${SDK_NAMES[sdk]}`));
    print(style.dim(`Each client below spawns its own server: node ${target.args.map((arg) => relative(process.cwd(), arg)).join(' ')}`));
  } else {
    running = await startHttpServer({ port: 0, sdk, exportPaceMs: exportPaceFrom() });
    target = { kind: 'http', url: running.url };
    composed = running.composed;
    where = 'this server';
    print(style.bold(`Project tracker tour: MCP extensions over Streamable HTTP at ${running.url.href}, on ${SDK_NAMES[sdk]}`));
  }
  try {
    await tour({ target, era: sdk === 'v1' ? 'legacy' : 'modern', sdk }, composed, where);
  } catch (error) {
    if (!(error instanceof UnexpectedOutcome)) throw error;
    print();
    print(style.red(`UNEXPECTED: ${error.message}`));
    return 1;
  } finally {
    await running?.close();
  }
  print();
  print(style.green(style.bold('Tour complete: every step behaved as described.')));
  print(style.dim(`Not in the demo yet: ${NOT_WIRED_IN.join(', ')} (see apps/demo/README.md).`));
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('tour failed:', error);
    process.exitCode = 1;
  },
);
