/**
 * The tracker console: an MCP client in the browser. It connects to the
 * page's own origin over Streamable HTTP, advertises the extensions it
 * handles, and walks a person through the tour: structured results, the
 * confirmation dialog (token path, and elicitation when the server asks
 * in-band), a progress bar (`steps.ts`), an export run as a task
 * (`tasks.ts`), the manifest and live notifications (`events.ts`). This
 * file signs in (`sign-in.ts`), connects and lays the page out.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { logNotification, watchEvents } from './events.js';
import {
  anyObject,
  askPerson,
  CONFIRMATION,
  element,
  ERRORS,
  EVENTS,
  MANIFEST,
  NEGOTIATION,
  record,
  show,
} from './page.js';
import { signIn } from './sign-in.js';
import { STEPS } from './steps.js';
import { setUpTasks } from './tasks.js';

/** Connects to the page's own origin, with the bearer token chosen at start on every request. */
async function connect(bearer: string | undefined): Promise<Client> {
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

async function main(): Promise<void> {
  element('endpoint').textContent = new URL('/mcp', window.location.origin).href;
  const status = element('status');
  const bearer = await signIn();
  const client = await connect(bearer);
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
