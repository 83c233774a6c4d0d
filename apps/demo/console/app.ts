/**
 * The tracker console: an MCP client in the browser. It connects to the
 * page's own origin over Streamable HTTP, advertises the extensions it
 * handles, and walks a person through the tour: structured results, the
 * confirmation dialog (token path, and elicitation when the server asks
 * in-band), a progress bar, an export run as a task (`tasks.ts`), the
 * manifest and live notifications.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { setUpTasks } from './tasks.js';

const NS = 'io.github.mcp-ext';
const ERRORS = `${NS}/errors`;
const CONFIRMATION = `${NS}/confirmation`;
const NEGOTIATION = `${NS}/content-negotiation`;
const MANIFEST = `${NS}/manifest`;
const EVENTS = `${NS}/events`;

type Json = Record<string, unknown>;

/** Accepts any object result of an extension method. */
const anyObject: StandardSchemaV1<Json> = {
  '~standard': {
    version: 1,
    vendor: 'tracker-console',
    validate: (value) => (record(value) ? { value: value as Json } : { issues: [{ message: 'expected an object' }] }),
  },
};

interface CallOutcome {
  readonly result: Json;
  readonly explanation: string;
}

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function metaOf(result: Json, id: string): Json | undefined {
  return record(record(result._meta)?.[id]);
}

function show(outcome: CallOutcome): void {
  element('explanation').textContent = outcome.explanation;
  element('result').textContent = JSON.stringify(outcome.result, null, 2);
}

/** Opens `dialog` and resolves once it closes: true only when closed with the button of value `yes`. */
function answered(dialog: HTMLDialogElement, yes: string): Promise<boolean> {
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        resolve(dialog.returnValue === yes);
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** Resolves when the person answers the dialog: true only on an explicit approval. */
function askPerson(message: string, risk: string): Promise<boolean> {
  const dialog = element('confirm') as HTMLDialogElement;
  element('confirm-message').textContent = message;
  const badge = element('confirm-risk');
  badge.textContent = risk;
  badge.className = `risk ${risk}`;
  return answered(dialog, 'approve');
}

function progressBar(): {
  update: (progress: number, total: number | undefined, message: string | undefined) => void;
  done: () => void;
} {
  const box = element('progress-box');
  const bar = element('progress') as HTMLProgressElement;
  const label = element('progress-text');
  box.hidden = false;
  bar.value = 0;
  label.textContent = '';
  return {
    update(progress, total, message) {
      bar.max = total ?? 100;
      bar.value = progress;
      label.textContent = `${String(Math.round((progress / (total ?? 100)) * 100))}%${message ? `: ${message}` : ''}`;
    },
    done() {
      label.textContent = `${label.textContent} (done)`;
    },
  };
}

function logNotification(method: string, params: unknown): void {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()} ${method} ${JSON.stringify(params)}`;
  element('events').prepend(item);
  if (method === `notifications/${EVENTS}/event`) showTicketEvent(record(params) ?? {});
}

/** One entry of the live ticket-events panel: `ticket_created T-3 "Try the console" (open)`. */
function showTicketEvent(event: Json): void {
  const payload = record(event.payload) ?? {};
  const item = document.createElement('li');
  item.dataset.event = text(event.event, 'event');
  item.textContent = `${text(event.timestamp, new Date().toISOString()).slice(11, 19)} ${text(event.event, 'event')} ${text(payload.id, '?')} "${text(payload.title, '')}" (${text(payload.status, '?')})`;
  element('ticket-events').prepend(item);
}

/**
 * Subscribes to every event type the server publishes. On a connection
 * that stays open the server pushes them as notifications; otherwise (or
 * when the page is opened with `?delivery=poll`) the page polls with the
 * subscription's cursor.
 */
async function watchEvents(client: Client): Promise<void> {
  const status = element('ticket-events-status');
  const listed = await client.request({ method: `${EVENTS}/list`, params: {} }, anyObject);
  const names = (Array.isArray(listed.events) ? listed.events : [])
    .map((entry) => text(record(entry)?.name, ''))
    .filter((name) => name !== '');
  const preferred = new URLSearchParams(window.location.search).get('delivery') === 'poll' ? 'poll' : 'notification';
  const answer = await client.request(
    { method: `${EVENTS}/subscribe`, params: { events: names, delivery: preferred } },
    anyObject,
  );
  if (answer.status !== 'active') {
    status.textContent = `The server declined the subscription: ${text(answer.reason, 'no reason given')}.`;
    return;
  }
  status.textContent = `Subscribed to ${names.join(', ')}, delivered by ${text(answer.delivery, 'notification')}.`;
  if (answer.delivery === 'notification') return;
  let cursor = answer.cursor;
  const every = (typeof answer.poll_interval_seconds === 'number' ? answer.poll_interval_seconds : 5) * 1000;
  const poll = async (): Promise<void> => {
    const page = await client.request(
      { method: `${EVENTS}/poll`, params: { subscription_id: answer.subscription_id, cursor } },
      anyObject,
    );
    for (const event of Array.isArray(page.events) ? page.events : []) showTicketEvent(record(event) ?? {});
    cursor = page.cursor ?? cursor;
  };
  window.setInterval(() => {
    poll().catch((error: unknown) => {
      status.textContent = `Polling failed: ${String(error)}`;
    });
  }, every);
}

const TOKEN_KEY = 'tracker-token';

/** Who `token` belongs to, as the tracker says (`/console/whoami`): a user, `anonymous`, or `undefined` for a token it refuses. */
async function whoami(token: string | undefined): Promise<string | undefined> {
  const headers = token === undefined ? undefined : { authorization: `Bearer ${token}` };
  const response = await fetch(new URL('/console/whoami', window.location.origin), { headers });
  if (!response.ok) return undefined;
  const answer = record(await response.json()) ?? {};
  if (answer.anonymous === true) return 'anonymous';
  return typeof answer.user === 'string' ? answer.user : undefined;
}

/** Asks the person before a link signs this tab in (or switches it to another user): true only on an explicit yes. */
function askSignIn(linked: string, current: string | undefined): Promise<boolean> {
  const dialog = element('sign-in') as HTMLDialogElement;
  element('sign-in-message').textContent =
    current === undefined
      ? `The link you opened signs this tab in as ${linked}.`
      : `This tab is signed in as ${current}. The link you opened would sign it in as ${linked} instead.`;
  element('sign-in-accept').textContent = `Sign in as ${linked}`;
  element('sign-in-decline').textContent = current === undefined ? 'Do not sign in' : `Stay signed in as ${current}`;
  return answered(dialog, 'accept');
}

/** Shows who the page acts as, for every call it makes. */
function showIdentity(user: string | undefined): void {
  const shown = element('identity');
  shown.dataset.user = user ?? '';
  shown.textContent = user === undefined ? 'Not signed in.' : `Signed in as ${user}.`;
}

/**
 * The bearer token this page signs in with. The link the server prints
 * carries one in the URL fragment (never sent in a request); it is taken
 * out of the address bar at once, and kept for this tab only once the
 * person agreed to act as the user it names: a crafted link must not sign
 * anyone in as somebody else unawares (login CSRF).
 */
async function signIn(): Promise<string | undefined> {
  const fromLink = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromLink !== null) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const kept = window.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  const current = kept === undefined ? undefined : await whoami(kept);
  if (fromLink === null || fromLink === '' || fromLink === kept) {
    showIdentity(current);
    return kept;
  }
  const linked = await whoami(fromLink);
  if (linked === undefined) {
    showIdentity(current);
    element('status').textContent = 'The link you opened carries a token the tracker does not know; it was ignored.';
    return kept;
  }
  if (!(await askSignIn(linked, current))) {
    showIdentity(current);
    return kept;
  }
  window.sessionStorage.setItem(TOKEN_KEY, fromLink);
  showIdentity(linked);
  return fromLink;
}

/** The token chosen at start; every request of the page carries it. */
let bearer: string | undefined;

async function connect(): Promise<Client> {
  const client = new Client(
    { name: 'tracker-console', version: '0.0.0' },
    {
      capabilities: {
        elicitation: { form: {} },
        extensions: {
          [ERRORS]: { version: '1.0' },
          [CONFIRMATION]: { version: '1.0' },
          [NEGOTIATION]: { version: '1.0', features: ['human'] },
          [MANIFEST]: { version: '1.0' },
          [EVENTS]: { version: '1.0' },
        },
      },
    },
  );
  // In-band confirmation: the server asks through elicitation when it chooses to.
  client.setRequestHandler('elicitation/create', async (request: ElicitRequest): Promise<ElicitResult> => {
    const params = request.params;
    if (params.mode === 'url') return { action: 'decline' };
    const approved = await askPerson(params.message, /Risk level: (\w+)/.exec(params.message)?.[1] ?? 'reversible');
    return approved ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  });
  client.fallbackNotificationHandler = (notification) => {
    logNotification(notification.method, notification.params);
    return Promise.resolve();
  };
  const headers = bearer === undefined ? undefined : { authorization: `Bearer ${bearer}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', window.location.origin), { requestInit: { headers } }),
  );
  return client;
}

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

interface Step {
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

const STEPS: readonly Step[] = [
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

async function main(): Promise<void> {
  element('endpoint').textContent = new URL('/mcp', window.location.origin).href;
  const status = element('status');
  bearer = await signIn();
  const client = await connect();
  const info = client.getServerVersion();
  status.textContent = `Connected to ${info?.name ?? 'server'} ${info?.version ?? ''}.`;
  status.dataset.state = 'connected';

  const advertised = record(client.getServerCapabilities()?.extensions) ?? {};
  const list = element('extensions');
  for (const [id, settings] of Object.entries(advertised)) {
    const item = document.createElement('li');
    item.textContent = `${id} ${JSON.stringify(settings)}`;
    list.append(item);
  }

  const { tools } = await client.listTools();
  const names = new Set(tools.map((tool) => tool.name));
  const steps = element('steps');
  for (const step of STEPS) {
    const button = document.createElement('button');
    button.textContent = step.label;
    button.dataset.tool = step.tool;
    button.disabled = !names.has(step.tool);
    if (button.disabled) button.title = `This server has no ${step.tool} tool`;
    button.addEventListener('click', () => {
      button.disabled = true;
      step
        .run(client)
        .then(show, (error: unknown) => {
          show({ result: { error: String(error) }, explanation: 'The request failed.' });
        })
        .finally(() => {
          button.disabled = false;
        });
    });
    steps.append(button);
  }
  setUpTasks({ token: bearer, advertised, tools: names, show });

  if (EVENTS in advertised) await watchEvents(client);
  else element('ticket-events-status').textContent = 'This server publishes no events.';

  const manifest = element('manifest');
  if (MANIFEST in advertised) {
    manifest.textContent = JSON.stringify(
      await client.request({ method: `${MANIFEST}/get`, params: {} }, anyObject),
      null,
      2,
    );
  } else {
    manifest.textContent = JSON.stringify(
      tools.map((tool) => ({ name: tool.name, annotations: tool.annotations, _meta: tool._meta })),
      null,
      2,
    );
  }
  status.dataset.state = 'ready';
}

// A link followed from this very page changes only the fragment, which loads nothing: start over, so the
// page asks about the token it carries as it does on a fresh load.
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(window.location.hash.slice(1)).has('token')) window.location.reload();
});

main().catch((error: unknown) => {
  const status = element('status');
  const unauthorized = /\b401\b|Unauthorized|invalid_token/i.test(String(error));
  status.textContent = unauthorized
    ? 'The tracker does not know who you are: open the console link it printed at start (it carries your bearer token).'
    : `Could not connect: ${String(error)}`;
  status.dataset.state = 'failed';
});
