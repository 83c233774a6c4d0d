#!/usr/bin/env node
/**
 * A guided tour for newcomers: starts the tracker (Streamable HTTP in this
 * process, or the stdio server as a child with `--stdio`), then a scripted
 * client shows negotiation on both protocol eras, a normal call, a
 * structured error, the same error for a client without the extension, and
 * one tool answering an agent with JSON and a person with markdown.
 * Exits 0 when every step behaved as described, 1 otherwise.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ComposedServer, ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_EXTENSION_ID } from '@ext/content-negotiation';
import { getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { CONFIRMATION_ID } from '@ext/confirmation';
import { callWithConfirmation, confirmationClient } from '@ext/confirmation/client';
import { idempotencyClient } from '@ext/idempotency/client';
import { PROVENANCE_ID } from '@ext/provenance';
import { citation, getProvenance, provenanceClient } from '@ext/provenance/client';
import { runSaga, transactionsClient } from '@ext/transactions/client';
import { ERRORS_EXTENSION_ID, ERRORS_PACKAGE_NAME } from '@ext/errors';
import { getStructuredError, isRetryable } from '@ext/errors/client';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { connect, MODERN_PROTOCOL_VERSION, type Connection, type Era, type Target } from './connect.js';
import { CATEGORY_ADVICE, compact, dig, pretty, styles } from './explain.js';
import { startHttpServer, type RunningHttpServer } from './node-http.js';
import { composeTracker } from './server.js';

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

async function degradation(target: Target): Promise<void> {
  const plain = await connect(target, { era: 'modern', withErrors: false, name: 'plain-client' });
  try {
    const sent = dig(plain.wire.exchange('server/discover')?.request.params, '_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions');
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
async function contentNegotiation(target: Target): Promise<void> {
  const audiences = [
    { label: 'agent', features: ['agent'] },
    { label: 'person', features: ['human'] },
  ] as const;
  const results: ToolResult[] = [];
  for (const { label, features } of audiences) {
    // Over stdio each client spawns its own server, so each creates the ticket it then reads.
    const connection = await connect(target, { era: 'modern', withErrors: false, features, name: `${label}-client` });
    try {
      const extended = connection.extended;
      expect(extended !== undefined, 'the content-negotiation client has no extensions attached');
      // The tour needs the new id as data whoever asks: a per-call override asks for JSON.
      const created = await extended.callTool('create_ticket', { title: 'Render me twice', assignee: 'bob' }, { meta: overrideFeatures(['format=json']) });
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      const result = await extended.callTool('get_ticket', { id });
      const sent = dig(connection.wire.exchange('tools/call')?.request.params, '_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions', CONTENT_NEGOTIATION_EXTENSION_ID);
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
async function confirmation(target: Target): Promise<void> {
  const connection = await connect(target, { era: 'modern', extensions: [confirmationClient()], name: 'confirming-client' });
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
async function saga(target: Target): Promise<void> {
  const connection = await connect(target, { era: 'modern', extensions: [idempotencyClient(), transactionsClient()], name: 'saga-client' });
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
async function provenance(target: Target): Promise<void> {
  const connection = await connect(target, { era: 'modern', extensions: [provenanceClient()], name: 'citing-client' });
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

async function tour(target: Target, composed: ComposedServer, where: string): Promise<void> {
  section(
    '1. Negotiation',
    'SEP-2133: each side lists the extensions it speaks in capabilities.extensions; one is used only when both list it.',
  );
  const modern = await negotiation(target, 'modern');
  try {
    const legacy = await negotiation(target, 'legacy');
    await legacy.close();
    pipeline(composed, where);

    section('2. A normal call', `A client with ${ERRORS_PACKAGE_NAME} calls a tool that succeeds (protocol ${MODERN_PROTOCOL_VERSION}).`);
    await normalCall(modern);

    section('3. A structured error', `get_ticket with an id that does not exist. The errors extension turns the thrown error into data a client can act on.`);
    await structuredError(modern);
  } finally {
    await modern.close();
  }

  section('4. Degradation', `The same call from a plain MCP client that does not advertise ${ERRORS_EXTENSION_ID}.`);
  await degradation(target);

  section('5. Content negotiation', 'An agent declares the feature tag "agent", a person\'s client "human"; both call get_ticket.');
  await contentNegotiation(target);

  section('6. Confirmation', 'delete_ticket is destructive: the server holds the call until a person approves it.');
  await confirmation(target);

  section('7. A saga', 'Create a ticket, link a document, post to chat, as one transaction; the post goes to an archived channel.');
  await saga(target);

  section('8. Provenance', 'get_ticket cites where its data came from.');
  await provenance(target);
}

async function main(): Promise<number> {
  // `node dist/tour.js | head` closes the pipe early; that is the reader's choice, not a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  const useStdio = process.argv.includes('--stdio');
  let running: RunningHttpServer | undefined;
  let target: Target;
  let composed: ComposedServer;
  let where: string;
  if (useStdio) {
    // A throwaway database, so every tour starts from an empty tracker.
    target = { kind: 'stdio', command: process.execPath, args: [fileURLToPath(new URL('./stdio.js', import.meta.url))], env: { TRACKER_DB: ':memory:' } };
    // The stdio server runs in its own process; this is the same composition its code builds.
    composed = composeTracker();
    where = 'as composed by the stdio server';
    print(style.bold('Project tracker tour: MCP extensions over stdio'));
    print(style.dim(`Each client below spawns its own server: node ${target.args.map((arg) => relative(process.cwd(), arg)).join(' ')}`));
  } else {
    running = await startHttpServer({ port: 0 });
    target = { kind: 'http', url: running.url };
    composed = running.composed;
    where = 'this server';
    print(style.bold(`Project tracker tour: MCP extensions over Streamable HTTP at ${running.url.href}`));
  }
  try {
    await tour(target, composed, where);
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
  print(style.dim('Next in the demo: the extensions not built or not wired in yet (see apps/demo/README.md).'));
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
