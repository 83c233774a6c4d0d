#!/usr/bin/env node
/**
 * A guided tour for newcomers: starts the tracker (Streamable HTTP in this
 * process, or with `--stdio` the stdio server as a child; `--sdk v1` picks
 * the server built on the v1 SDK), then scripted clients show each extension in
 * turn: what the client sent, what came back, and what it means.
 * Exits 0 when every step behaved as described, 1 otherwise.
 */
import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, silentLogger, type ComposedServer, type ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_EXTENSION_ID } from '@ext/content-negotiation';
import { getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient, getConfirmationRequired } from '@ext/confirmation/client';
import { COST_ID } from '@ext/cost';
import { DATA_REFERENCES_ID, type DataReference } from '@ext/data-references';
import { dataReferencesClient, importReference, referencesIn } from '@ext/data-references/client';
import { createReferenceOrigin } from '@ext/data-references/server';
import { describeRecommendation, discoveryClient, recommendServers } from '@ext/discovery/client';
import { eventsClient, listEventTypes, subscribeEvents } from '@ext/events/client';
import { createManifestReader, manifestClient } from '@ext/manifest/client';
import { binaryInput, multimodalClient } from '@ext/multimodal/client';
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
import {
  connect,
  MODERN_PROTOCOL_VERSION,
  type Connection,
  type ConnectOptions,
  type Era,
  type Target,
} from './connect.js';
import { CATEGORY_ADVICE, compact, dig, pretty, progressBar, shorten, styles } from './explain.js';
import { resolveSdk, startHttpServer, type RunningHttpServer } from './node-http.js';
import { parseCsv } from './report.js';
import { ADMIN_SCOPE, composeTracker, exportPaceFrom, SHEETS_PEER } from './server.js';
import { startSheetsServer, type RunningSheetsServer } from './sheets.js';
import { EXPORT_QUOTA } from './tools.js';
import { demoPrincipal, type DemoUser } from './users.js';

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
  /** The second demo server, which imports the tracker's exports by reference. */
  readonly sheets: URL;
  /** The tracker's server card, when it runs on HTTP. */
  readonly cardUrl?: URL | undefined;
  /** Where each demo user connects, when the server authenticates its callers (HTTP). */
  readonly as?: ((user: DemoUser) => Target) | undefined;
}

function open(tour: TourTarget, options: Omit<ConnectOptions, 'era'>): Promise<Connection> {
  return connect(tour.target, { ...options, era: tour.era });
}

/** What a client advertised in `capabilities.extensions`, read off the wire. */
function advertised(connection: Connection, era: Era): unknown {
  if (era === 'legacy')
    return dig(connection.wire.exchange('initialize')?.request.params, 'capabilities', 'extensions');
  return dig(
    connection.wire.exchange('server/discover')?.request.params,
    '_meta',
    CLIENT_CAPABILITIES_META_KEY,
    'extensions',
  );
}

/** Step 1, for one era: what each side advertised, read off the wire, and what the client negotiated. */
async function negotiation(target: Target, era: Era): Promise<Connection> {
  const connection = await connect(target, { era, withErrors: true });
  const handshake = era === 'modern' ? 'server/discover' : 'initialize';
  const exchange = connection.wire.exchange(handshake);
  expect(exchange !== undefined, `the client did not send ${handshake}`);
  const sentPath =
    era === 'modern' ? ['_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions'] : ['capabilities', 'extensions'];
  const sent = dig(exchange.request.params, ...sentPath);
  const received = dig(exchange.response?.result, 'capabilities', 'extensions');
  const negotiated = connection.extended?.negotiated(ERRORS_PACKAGE_NAME);

  print();
  print(
    era === 'modern'
      ? style.bold(
          `  Protocol ${MODERN_PROTOCOL_VERSION}: no initialize; the client repeats its capabilities in every request's _meta`,
        )
      : style.bold(
          `  Legacy era (${String(dig(exchange.response?.result, 'protocolVersion'))}): capabilities are exchanged once, in initialize`,
        ),
  );
  const sentWhere =
    era === 'modern' ? `params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions` : 'params.capabilities.extensions';
  row('client -> server', `${handshake}\n${sentWhere}\n${compact(sent)}`);
  row('server -> client', `result.capabilities.extensions\n${compact(received)}`);
  row(
    'negotiated',
    negotiated ? `${ERRORS_PACKAGE_NAME} as ${negotiated.id} (settings ${compact(negotiated.settings)})` : 'nothing',
  );

  expect(
    dig(sent, ERRORS_EXTENSION_ID) !== undefined,
    `the client did not advertise ${ERRORS_EXTENSION_ID} on the ${era} era`,
  );
  expect(
    dig(received, ERRORS_EXTENSION_ID) !== undefined,
    `the server did not advertise ${ERRORS_EXTENSION_ID} on the ${era} era`,
  );
  expect(negotiated?.id === ERRORS_EXTENSION_ID, `${ERRORS_PACKAGE_NAME} was not negotiated on the ${era} era`);
  expect(
    connection.extended?.era === era,
    `the client ended up on the ${String(connection.extended?.era)} era, not ${era}`,
  );
  return connection;
}

function pipeline(composed: ComposedServer, where: string): void {
  print();
  print(style.bold(`  The server's tool-call pipeline (${where}), outermost first:`));
  print(
    composed
      .describe()
      .split('\n')
      .map((line) => `    ${line.trimEnd()}`)
      .join('\n'),
  );
  print(
    style.dim(
      '  @ext/core fixes this order, whatever order the extensions are listed in: checks that refuse a call run before anything with effects.',
    ),
  );
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
  if (envelope !== undefined)
    row('', style.dim(`(with params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions = ${compact(envelope)})`));
  row('server -> client', `structuredContent.ticket ${compact(result.structuredContent?.ticket)}`);
  const ticket = dig(result.structuredContent, 'ticket');
  expect(result.isError !== true, `create_ticket failed: ${compact(result.content)}`);
  expect(
    typeof dig(ticket, 'id') === 'string' && dig(ticket, 'status') === 'open',
    'create_ticket did not return an open ticket',
  );
  expect(dig(result._meta, ERRORS_EXTENSION_ID) === undefined, 'a successful result carried an error object');
  ok('a successful call looks exactly as it would without extensions: nothing extra was added to the result.');
}

async function structuredError(connection: Connection): Promise<void> {
  const extended = connection.extended;
  expect(extended !== undefined, 'the tour client has no extensions attached');
  const result = await extended.callTool('get_ticket', { id: UNKNOWN_ID });
  const onWire = dig(connection.wire.exchange('tools/call')?.response?.result, '_meta', ERRORS_EXTENSION_ID);
  row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
  row(
    'server -> client',
    `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}`,
  );
  row('', `_meta["${ERRORS_EXTENSION_ID}"]:\n${pretty(onWire, 0)}`);

  const structured = getStructuredError(result);
  expect(result.isError === true, 'get_ticket on an unknown id did not fail');
  expect(structured !== undefined, `the failed result carries no _meta["${ERRORS_EXTENSION_ID}"]`);
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
}

async function degradation(tour: TourTarget): Promise<void> {
  const plain = await open(tour, { withErrors: false, name: 'plain-client' });
  try {
    const sent = advertised(plain, tour.era);
    const result = (await plain.client.callTool({ name: 'get_ticket', arguments: { id: UNKNOWN_ID } })) as ToolResult;
    row('client advertised', `capabilities.extensions ${compact(sent)}`);
    row('client -> server', `tools/call get_ticket ${compact({ id: UNKNOWN_ID })}`);
    row(
      'server -> client',
      `isError: ${String(result.isError)}\ncontent[0].text: ${compact(dig(result.content, '0', 'text'))}\n_meta["${ERRORS_EXTENSION_ID}"]: ${compact(dig(result._meta, ERRORS_EXTENSION_ID))}`,
    );
    expect(dig(sent, ERRORS_EXTENSION_ID) === undefined, 'the plain client advertised the errors extension');
    expect(result.isError === true, 'get_ticket on an unknown id did not fail for the plain client');
    expect(
      dig(result._meta, ERRORS_EXTENSION_ID) === undefined,
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
      const created = await extended.callTool(
        'create_ticket',
        { title: 'Render me twice', assignee: 'bob' },
        { meta: overrideFeatures(['format=json']) },
      );
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      const result = await extended.callTool('get_ticket', { id });
      const sent = dig(advertised(connection, tour.era), CONTENT_NEGOTIATION_EXTENSION_ID);
      print();
      row(
        `${label} client`,
        `declares ${compact(sent)}
tools/call get_ticket ${compact({ id })}`,
      );
      const structured =
        result.structuredContent === undefined
          ? 'no structuredContent'
          : `structuredContent ${compact(result.structuredContent)}`;
      row('server -> client', `${structured}\ncontent[0].text:\n${String(dig(result.content, '0', 'text'))}`);
      row(
        '',
        `_meta["${CONTENT_NEGOTIATION_EXTENSION_ID}"] ${compact(dig(result._meta, CONTENT_NEGOTIATION_EXTENSION_ID))}`,
      );
      results.push(result);
    } finally {
      await connection.close();
    }
  }
  const [forAgent, forPerson] = results;
  expect(
    getAppliedFeatures(forAgent)?.format === 'json' &&
      dig(forAgent?.structuredContent, 'ticket', 'title') === 'Render me twice',
    'the agent did not get the ticket as JSON',
  );
  expect(
    getAppliedFeatures(forPerson)?.format === 'markdown' && forPerson?.structuredContent === undefined,
    'the person did not get markdown',
  );
  expect(String(dig(forPerson?.content, '0', 'text')).startsWith('### '), 'the markdown does not start with a heading');
  print();
  ok(
    'one handler, two renderings: render(ctx, { data, markdown }) picked JSON for the agent and markdown for the person; each result names what it applied.',
  );
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
    const result = await callWithConfirmation(
      client,
      'delete_ticket',
      { id },
      {
        confirm: (request) => {
          if (request.kind === 'call') {
            asked.push(request.message);
            row('server -> client', `confirmation_required (${request.risk_level}): "${request.message}"`);
            row('person', 'approves (the tour answers yes for you)');
          }
          return Promise.resolve(true);
        },
      },
    );
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
      {
        client,
        server: 'tracker',
        tool: 'link_document',
        arguments: (previous) => ({
          id: String(dig(previous[0]?.structuredContent, 'ticket', 'id')),
          url: 'https://docs.example.com/release-2',
        }),
      },
      {
        client,
        server: 'tracker',
        tool: 'post_message',
        arguments: { channel: 'archive', text: 'Release 2.0 is out' },
      },
    ]);
    expect(outcome.status !== 'committed', 'the saga committed although the post failed');
    const participant = outcome.participants[0];
    row('steps', 'create_ticket ok, link_document ok, post_message to #archive: CHANNEL_ARCHIVED');
    row('rollback', compact(participant?.steps_compensated));
    expect(participant?.status === 'rolled_back', `the saga ended ${String(participant?.status)}`);
    print();
    ok(
      'the failed post rolled the transaction back: the link and the ticket were undone, newest first, by server-side compensations.',
    );
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

/** A tool that needs a scope nobody is granted automatically: asked about, negotiated, refused. */
async function permissions(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [permissionsClient()], name: 'permissions-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the permissions client has no extensions attached');
    const check = await preflight(client, 'purge_closed_tickets');
    row('client -> server', `${PERMISSIONS_ID}/check ${compact({ tool: 'purge_closed_tickets' })}`);
    row('server -> client', compact(check));
    expect(
      check?.allowed === false && check.missing_scopes?.includes(ADMIN_SCOPE) === true,
      `preflight did not name the missing ${ADMIN_SCOPE} scope`,
    );
    const answer = await negotiateScopes(client, [ADMIN_SCOPE], { justification: 'tidy up the board' });
    row(
      'client -> server',
      `${PERMISSIONS_ID}/negotiate ${compact({ requested_scopes: [ADMIN_SCOPE], justification: 'tidy up the board' })}`,
    );
    row('server -> client', `granted ${compact(answer?.granted_scopes)}, denied ${compact(answer?.denied_scopes)}`);
    expect(
      answer?.denied_scopes?.some((denied) => denied.scope === ADMIN_SCOPE) === true,
      `${ADMIN_SCOPE} was granted automatically`,
    );
    const result = await client.callTool('purge_closed_tickets');
    const refused = getStructuredError(result);
    row('client -> server', 'tools/call purge_closed_tickets {} anyway');
    row('server -> client', `${String(refused?.code)} (${String(refused?.category)}): ${String(refused?.message)}`);
    expect(
      refused?.code === 'SCOPE_INSUFFICIENT' && refused.category === 'auth_required',
      'the admin tool was not refused for want of its scope',
    );
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
    row(
      'client -> server',
      `tools/call get_ticket ${compact({ id })} with _meta["${INTENT_ID}"] ${compact({ intent: why })}`,
    );
    row('server -> client', `the ticket, and _meta["${INTENT_ID}"] ${compact(outcome.suggestion)}`);
    expect(outcome.result.isError !== true, 'the advisory call did not run');
    expect(
      outcome.suggestion?.suggestion.recommended_tool === 'list_tickets',
      'the server did not suggest list_tickets',
    );
    print();
    ok(
      "advisory mode: the call still ran, and the agent learned that list_tickets answers what it wants; following it is the host's policy.",
    );
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
    const titles = [
      'Draft the roadmap',
      'Fix the login bug',
      'Review "pricing, v2"',
      'Update the changelog',
      'Answer support mail',
      'Renew certificates',
      'Clean up the backlog',
      'Prepare the demo',
    ];
    for (const [index, title] of titles.entries())
      await client.callTool('create_ticket', { title, assignee: index % 2 === 0 ? 'alice' : 'bob' });
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
      process.stdout.write(
        `\r  ${style.bold('progress'.padEnd(LABEL_WIDTH))}${progressBar(fraction)} ${message.padEnd(16)}`,
      );
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
    row(
      'server -> client',
      `${String(updates)} progress notifications, ${String(rows.length)} stream_chunk notifications (the CSV header, then a row each)`,
    );
    row('first rows', rows.slice(0, 3).join('\n'));
    row(
      'result',
      `report ${String(dig(report, 'id'))}: ${String(dig(report, 'rows'))} rows, ${String(dig(report, 'bytes'))} bytes`,
    );
    const cost = getCostInfo(result);
    row('', `_meta["${COST_ID}"] ${compact(cost)}`);
    const exported = Number(dig(report, 'rows'));
    expect(
      exported >= titles.length && rows.length === exported + 1 && records.length === rows.length,
      'the export did not stream a header and one row per ticket',
    );
    const streamed = rows.map((line) => `${line}\r\n`).join('');
    // With a reference origin the CSV is not inlined: the result names where to fetch it, and how big it is.
    const held =
      dig(report, 'reference') === undefined
        ? Buffer.byteLength(String(dig(report, 'csv')))
        : Number(dig(report, 'reference', 'size_bytes'));
    expect(
      held === Buffer.byteLength(streamed) && Number(dig(report, 'bytes')) === held,
      'the streamed rows are not the report the result holds',
    );
    expect(updates === exported && last.fraction === 1, 'the export did not report progress up to 100%');
    expect(
      cost?.units_used === 1 && cost.quota?.remaining === EXPORT_QUOTA - 1,
      'the export was not metered against its quota',
    );
    print();
    row(
      'what it means',
      `rows arrived in order while the export ran; the call used 1 of ${String(EXPORT_QUOTA)} exports this hour (a 6th is refused with QUOTA_EXHAUSTED, rate_limited, retry after the window).`,
    );
    ok('streaming showed the work as it happened; cost told the client what it spent and what is left.');
  } finally {
    await connection.close();
  }
}

/** A 1x1 PNG: a real image, small enough to print. */
const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** What the server offers, in one request: the manifest, and the same document as a static server card over HTTP. */
async function manifestStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [manifestClient()], name: 'planning-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the planning client has no extensions attached');
    const reader = createManifestReader(client);
    const manifest = await reader.get();
    expect(manifest !== undefined, 'the server did not answer its manifest');
    const tools = manifest.tools.map((tool) => tool.name);
    const confirming = await reader.toolsRequiringConfirmation();
    const costly = await reader.costlyTools();
    row('client -> server', `${MANIFEST_METHOD} {}`);
    row('server -> client', `${String(tools.length)} tools: ${tools.join(', ')}`);
    row('', `needs a person's approval: ${compact(confirming)}; metered or costly: ${compact(costly)}`);
    row('', `extensions: ${Object.keys(manifest.extensions ?? {}).length} listed`);
    expect(
      confirming.includes('delete_ticket') && costly.includes('export_report'),
      'the manifest does not flag delete_ticket and export_report',
    );
    if (tour.cardUrl !== undefined) {
      const response = await fetch(tour.cardUrl);
      const card = (await response.json()) as Record<string, unknown>;
      row(
        'GET',
        `${tour.cardUrl.pathname} -> ${String(response.status)}, ETag ${String(response.headers.get('etag'))}, name ${compact(card.name)}`,
      );
      expect(
        response.ok && dig(card, '_meta', MANIFEST_METHOD.slice(0, -'/get'.length)) !== undefined,
        'the server card does not carry the manifest',
      );
    }
    print();
    ok(
      'an agent can plan before it calls: which tools need approval, which cost something, all from what the server registered.',
    );
  } finally {
    await connection.close();
  }
}

/** Ticket changes pushed to a subscriber as they happen. */
async function eventsStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [eventsClient()], name: 'watching-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the watching client has no extensions attached');
    const types = (await listEventTypes(client))?.events.map((type) => type.name) ?? [];
    row('client -> server', `${EVENTS_PREFIX}/list -> ${compact(types)}`);
    const received: { event: string; payload: unknown }[] = [];
    let arrived: () => void = () => undefined;
    const both = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const subscription = await subscribeEvents(client, {
      events: ['ticket_created', 'ticket_closed'],
      onEvent: (event) => {
        received.push({ event: event.event, payload: event.payload });
        if (received.length === 2) arrived();
      },
    });
    expect(subscription !== undefined, 'the server did not accept the subscription');
    row('client -> server', `${EVENTS_PREFIX}/subscribe ${compact({ events: ['ticket_created', 'ticket_closed'] })}`);
    try {
      const created = await client.callTool('create_ticket', { title: 'Watch me', assignee: 'carol' });
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      await client.callTool('close_ticket', { id });
      row('meanwhile', `create_ticket, then close_ticket ${id}`);
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
      await Promise.race([both, timeout]);
      for (const event of received) row('server -> client', `${event.event} ${compact(event.payload)}`);
      expect(
        received.map((event) => event.event).join(',') === 'ticket_created,ticket_closed',
        `events arrived as ${compact(received)}`,
      );
    } finally {
      await subscription.unsubscribe();
    }
    print();
    ok(
      `the subscriber heard both changes in order (${tour.era === 'modern' ? 'on 2026-07-28 over a stream request it keeps open' : 'as notifications on its connection'}); with Redis, from any instance.`,
    );
  } finally {
    await connection.close();
  }
}

/** The export as a signed URL, imported by the sheets server directly: the bytes never pass through the client. */
async function dataReferencesStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [dataReferencesClient()], name: 'moving-client' });
  const sheets = await connect(
    { kind: 'http', url: tour.sheets },
    { era: 'modern', extensions: [dataReferencesClient()], name: 'sheets-client' },
  );
  try {
    const tracker = connection.extended;
    const target = sheets.extended;
    expect(tracker !== undefined && target !== undefined, 'the clients have no extensions attached');
    const exported = await tracker.callTool('export_report', {});
    const [reference] = referencesIn(exported);
    expect(reference !== undefined, 'export_report returned no data reference');
    const link = exported.content.find((block) => block.type === 'resource_link');
    row('client -> tracker', 'tools/call export_report {}');
    row('tracker -> client', `_meta["${DATA_REFERENCES_ID}"].references[0]\n${pretty(shownReference(reference), 0)}`);
    row('', `plus a resource_link for clients without the extension: ${compact(dig(link, 'uri'))}`);
    const answer = await importReference(target, reference);
    row('client -> sheets', `${DATA_REFERENCES_ID}/import { ref_id, origin_server, access_url, checksum, ... }`);
    row('sheets -> client', compact(answer));
    expect(answer?.status === 'imported', `sheets did not import the export: ${compact(answer)}`);
    const summary = await target.callTool('sheet_summary', { resource_id: answer.imported_resource_id });
    row('client -> sheets', `tools/call sheet_summary ${compact({ resource_id: answer.imported_resource_id })}`);
    row('sheets -> client', compact(summary.structuredContent));
    expect(
      Number(dig(summary.structuredContent, 'rows')) === Number(dig(exported.structuredContent, 'report', 'rows')),
      'sheets counted other rows than the tracker exported',
    );
    print();
    ok(
      `sheets fetched ${String(reference.size_bytes)} bytes from the tracker's signed URL and checked their sha256; the client only passed the reference along.`,
    );
  } finally {
    await sheets.close();
    await connection.close();
  }
}

function shownReference(reference: DataReference): Record<string, unknown> {
  const { access_url: url, ...rest } = reference;
  return {
    ...rest,
    access_url: typeof url === 'string' ? `${url.slice(0, url.indexOf('?') + 1)}...(signed, expires)` : url,
  };
}

/** An image sent as raw bytes out of band, and an unsupported type refused before the tool runs. */
async function multimodalStep(tour: TourTarget): Promise<void> {
  // The tour's image is tiny: out of band from the first byte (the default starts at 64 KiB), to show the path.
  const connection = await open(tour, {
    extensions: [dataReferencesClient(), multimodalClient({ mimeTypes: ['image/*'], minOutOfBandBytes: 0 })],
    name: 'attaching-client',
  });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the attaching client has no extensions attached');
    const created = await client.callTool('create_ticket', { title: 'Screenshot of the bug' });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const image = await binaryInput(client, PIXEL_PNG, { mimeType: 'image/png' });
    const outOfBand = dig(image, 'ref_id') !== undefined;
    row(
      'client -> server',
      outOfBand
        ? `PUT ${String(PIXEL_PNG.length)} raw bytes to the upload URL, then tools/call attach_image with the data reference`
        : 'tools/call attach_image with base64 image content',
    );
    const attached = await client.callTool('attach_image', { id, image });
    row('server -> client', compact(attached.structuredContent));
    expect(
      attached.isError !== true && dig(attached.structuredContent, 'attachment', 'bytes') === PIXEL_PNG.length,
      `attach_image failed: ${compact(attached.content)}`,
    );
    const wrong = await client.callTool('attach_image', {
      id,
      image: { type: 'image', data: PIXEL_PNG.toString('base64'), mimeType: 'image/tiff' },
    });
    const refusal = getStructuredError(wrong);
    row('client -> server', 'tools/call attach_image with an image/tiff');
    row('server -> client', `${String(refusal?.code)} (${String(refusal?.category)}): ${String(refusal?.message)}`);
    expect(
      wrong.isError === true && refusal?.category === 'invalid_input',
      'an unsupported image type was not refused',
    );
    print();
    ok(
      `${outOfBand ? 'the bytes went out of band, no base64 in JSON' : 'the image went inline'}; the tool's declared types and size limit were checked before it ran.`,
    );
  } finally {
    await connection.close();
  }
}

/** Which server to use for something this one does not do. */
async function discoveryStep(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [discoveryClient()], name: 'discovering-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the discovering client has no extensions attached');
    const answer = await recommendServers(client, 'spreadsheet', { maxResults: 3 });
    row('client -> server', `${DISCOVERY_METHOD} ${compact({ capability_needed: 'spreadsheet', max_results: 3 })}`);
    for (const recommendation of answer?.recommendations ?? [])
      row('server -> client', describeRecommendation(recommendation));
    expect(
      answer?.recommendations[0]?.server_name === SHEETS_PEER.name,
      `sheets was not recommended first: ${compact(answer?.recommendations.map((entry) => entry.server_name))}`,
    );
    expect(
      !answer.recommendations.some((entry) => entry.server_name === 'com.example.legacy/sheets'),
      'a deprecated registry entry was recommended',
    );
    print();
    ok(
      'the query never left the server; the deprecated spreadsheet entry of the registry index was left out, and each match says why it ranked.',
    );
  } finally {
    await connection.close();
  }
}

const MANIFEST_METHOD = 'io.github.mcp-ext/manifest/get';
const EVENTS_PREFIX = 'io.github.mcp-ext/events';
const DISCOVERY_METHOD = 'io.github.mcp-ext/discovery/recommend';

/** The error code of a refused call, or `undefined` when it was not refused. */
function refusal(result: ToolResult): string | undefined {
  return result.isError === true ? getStructuredError(result)?.code : undefined;
}

/** Bob tries alice's confirmation token and session state, and exports on his own quota. */
async function twoUsers(tour: TourTarget, as: (user: DemoUser) => Target): Promise<void> {
  const extensions = [confirmationClient(), sessionStateClient(), streamingClient(), costClient()];
  const alice = await connect(as('alice'), { era: tour.era, extensions, name: 'alice-client' });
  const bob = await connect(as('bob'), { era: tour.era, extensions, name: 'bob-client' });
  try {
    const [a, b] = [alice.extended, bob.extended];
    expect(a !== undefined && b !== undefined, 'the two clients have no extensions attached');
    row('callers', `alice is ${demoPrincipal('alice')}, bob is ${demoPrincipal('bob')} (from their bearer tokens)`);

    const created = await a.callTool('create_ticket', { title: "Alice's draft" });
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const held = getConfirmationRequired(await a.callTool('delete_ticket', { id }));
    expect(held !== undefined, 'delete_ticket was not held for confirmation');
    row('alice', `delete_ticket ${id}: held; her confirmation_token ${shorten(held.confirmation_token)}`);
    const stolen = await b.callTool(
      'delete_ticket',
      { id },
      { meta: { [CONFIRMATION_ID]: { confirmation_token: held.confirmation_token } } },
    );
    row('bob', `the same call with alice's token: ${String(refusal(stolen))}`);
    expect(
      refusal(stolen) === 'CONFIRMATION_PRINCIPAL_MISMATCH',
      `bob's use of alice's token was not refused: ${compact(stolen)}`,
    );
    const still = await a.callTool('get_ticket', { id });
    expect(still.isError !== true, 'the ticket is gone although nobody approved its deletion');

    const view = getSessionStateMeta(await a.callTool('set_view', { status: 'closed' }));
    const sealed = dig(view, 'session_state');
    expect(typeof sealed === 'string', 'set_view issued no session state');
    const replayed = await b.callTool('list_tickets', {}, { meta: { [SESSION_STATE_ID]: { session_state: sealed } } });
    row(
      'bob',
      `list_tickets with alice's session state: ${String(refusal(replayed))} (${String(dig(getStructuredError(replayed)?.details, 'reason'))})`,
    );
    expect(refusal(replayed) === 'SESSION_STATE_INVALID', `bob read alice's session state: ${compact(replayed)}`);

    const remaining = async (client: NonNullable<Connection['extended']>): Promise<number | undefined> => {
      let result: ToolResult | undefined;
      for await (const update of streamCall(client, 'export_report', {}, { timeoutMs: 120_000 }))
        if (update.type === 'result') result = update.result;
      return result === undefined ? undefined : getCostInfo(result)?.quota?.remaining;
    };
    const left = { alice: await remaining(a), bob: await remaining(b) };
    row(
      'quota',
      `after one more export each: alice has ${String(left.alice)} left, bob ${String(left.bob)} of ${String(EXPORT_QUOTA)}`,
    );
    expect(
      left.bob === EXPORT_QUOTA - 1 && left.alice !== undefined && left.alice < left.bob,
      "bob shares alice's export quota",
    );
    print();
    ok('each caller keeps its own tokens, state and quota: what alice holds is useless to bob.');
  } finally {
    await alice.close();
    await bob.close();
  }
}

async function tour(tour: TourTarget, composed: ComposedServer, where: string): Promise<void> {
  const eraNote =
    tour.sdk === 'v1' ? ' The v1 SDK speaks the 2025 protocol only, so every client below uses initialize.' : '';
  section(
    '1. Negotiation',
    `SEP-2133: each side lists the extensions it speaks in capabilities.extensions; one is used only when both list it.${eraNote}`,
  );
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

    section(
      '3. A structured error',
      `get_ticket with an id that does not exist. The errors extension turns the thrown error into data a client can act on.`,
    );
    await structuredError(main);
  } finally {
    await main.close();
  }

  section('4. Degradation', `The same call from a plain MCP client that does not advertise ${ERRORS_EXTENSION_ID}.`);
  await degradation(tour);

  section(
    '5. Content negotiation',
    'An agent declares the feature tag "agent", a person\'s client "human"; both call get_ticket.',
  );
  await contentNegotiation(tour);

  section('6. Session state', 'set_view remembers which tickets list_tickets shows this caller.');
  await sessionStateStep(tour);

  section(
    '7. Permissions',
    `purge_closed_tickets needs the ${ADMIN_SCOPE} scope, which is never granted automatically.`,
  );
  await permissions(tour);

  section('8. Intent', 'An agent reads one ticket while it wants them all, and says so.');
  await intent(tour);

  section('9. Confirmation', 'delete_ticket is destructive: the server holds the call until a person approves it.');
  await confirmation(tour);

  section(
    '10. A saga',
    'Create a ticket, link a document, post to chat, as one transaction; the post goes to an archived channel.',
  );
  await saga(tour);

  section('11. Provenance', 'get_ticket cites where its data came from.');
  await provenance(tour);

  section(
    '12. Streaming and cost',
    'export_report writes a CSV of every ticket, row by row; it is metered: a few exports per caller per hour.',
  );
  await exportReport(tour);

  section('13. Manifest', 'One request tells a client everything the server offers, before it calls anything.');
  await manifestStep(tour);

  section('14. Events', 'A client subscribes to ticket changes; another call creates and closes a ticket.');
  await eventsStep(tour);

  section(
    '15. Data references',
    `export_report hands out a signed URL instead of the CSV; the sheets server (${tour.sheets.href}) imports it directly.`,
  );
  await dataReferencesStep(tour);

  section(
    '16. Multimodal',
    'attach_image takes PNG, JPEG, GIF or WebP up to 4 MiB; the client uploads the raw bytes out of band.',
  );
  await multimodalStep(tour);

  section('17. Discovery', 'The tracker does no spreadsheets; the client asks it which server does.');
  await discoveryStep(tour);

  section('18. Two users', 'Every caller is a principal of its own: here alice and bob, each with a bearer token.');
  if (tour.as === undefined)
    row('', style.dim('Over stdio the server serves one client per process: there is no second caller to show.'));
  else await twoUsers(tour, tour.as);
}

const SDK_NAMES = { v1: 'SDK v1 (@modelcontextprotocol/sdk)', v2: 'SDK v2 (@modelcontextprotocol/server)' } as const;

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
  // Secrets made for this tour on purpose: it keeps nothing across runs, so the servers need not warn about them.
  const secrets = {
    TRACKER_SESSION_SECRET: randomBytes(32).toString('base64url'),
    TRACKER_REFS_SECRET: randomBytes(32).toString('base64url'),
  };
  if (useStdio) {
    const entry = sdk === 'v1' ? './stdio-v1.js' : './stdio.js';
    // A throwaway database, so every tour starts from an empty tracker.
    target = {
      kind: 'stdio',
      command: process.execPath,
      args: [fileURLToPath(new URL(entry, import.meta.url))],
      env: { TRACKER_DB: ':memory:', REDIS_URL: '', ...secrets },
    };
    // The stdio server runs in its own process; this is the same composition its code builds
    // (an origin that never listens stands in for the one each stdio server starts).
    composed = composeTracker({
      origin: createReferenceOrigin({
        secret: secrets.TRACKER_REFS_SECRET,
        store: new MemoryStore(),
        serverName: 'tracker',
      }),
      sessionSecret: secrets.TRACKER_SESSION_SECRET,
    });
    where = 'as composed by the stdio server';
    print(style.bold(`Project tracker tour: MCP extensions over stdio, on ${SDK_NAMES[sdk]}`));
    print(
      style.dim(
        `Each client below spawns its own server: node ${target.args.map((arg) => relative(process.cwd(), arg)).join(' ')}`,
      ),
    );
  } else {
    running = await startHttpServer({
      port: 0,
      sdk,
      exportPaceMs: exportPaceFrom(),
      sessionSecret: secrets.TRACKER_SESSION_SECRET,
      refsSecret: secrets.TRACKER_REFS_SECRET,
    });
    target = running.as('alice');
    composed = running.composed;
    where = 'this server';
    print(
      style.bold(
        `Project tracker tour: MCP extensions over Streamable HTTP at ${running.url.href}, on ${SDK_NAMES[sdk]}`,
      ),
    );
  }
  // Sheets fetches only from the tracker's reference origin: over HTTP its exact origin; over stdio every
  // client spawns a tracker whose origin takes a free port, so any http origin on this machine's loopback.
  const trackerOrigin = running?.origin === undefined ? undefined : new URL(running.origin.baseUrl).origin;
  let sheets: RunningSheetsServer | undefined;
  try {
    sheets = await startSheetsServer({
      allowedOrigins:
        trackerOrigin === undefined
          ? (url: URL) => url.protocol === 'http:' && url.hostname === '127.0.0.1'
          : [trackerOrigin],
      logger: silentLogger,
    });
    print(style.dim(`The sheets server (a second MCP server) listens at ${sheets.url.href}.`));
    await tour(
      {
        target,
        era: sdk === 'v1' ? 'legacy' : 'modern',
        sdk,
        sheets: sheets.url,
        cardUrl: running?.cardUrl,
        as: running?.as,
      },
      composed,
      where,
    );
  } catch (error) {
    if (!(error instanceof UnexpectedOutcome)) throw error;
    print();
    print(style.red(`UNEXPECTED: ${error.message}`));
    return 1;
  } finally {
    await sheets?.close();
    await running?.close();
  }
  print();
  print(style.green(style.bold('Tour complete: every step behaved as described.')));
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
