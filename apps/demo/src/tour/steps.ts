/** The tour's twenty-one steps, in order, each introduced by what it shows; the steps themselves live in files of their own. */
import type { ComposedServer } from '@ext/core';
import { ERRORS_ID, ERRORS_PACKAGE_NAME } from '@ext/errors';
import { MODERN_PROTOCOL_VERSION } from '../client/connect.js';
import { ADMIN_SCOPE } from '../tools/tool-limits.js';
import { confirmation } from './confirmation.js';
import { contentNegotiation } from './content-negotiation.js';
import { dataReferencesStep } from './data-references.js';
import { discoveryStep } from './discovery.js';
import { degradation, normalCall, structuredError } from './errors.js';
import { eventsStep } from './events.js';
import { exportReport } from './export-report.js';
import { gatewayStep } from './gateway.js';
import { intent } from './intent.js';
import { manifestStep } from './manifest.js';
import { multimodalStep } from './multimodal.js';
import { negotiation, pipeline } from './negotiation.js';
import { operatorApprovalStep } from './operator-approval.js';
import { row, section, style } from './output.js';
import { permissions } from './permissions.js';
import { provenance } from './provenance.js';
import { saga } from './saga.js';
import { sessionStateStep } from './session-state.js';
import type { TourTarget } from './target.js';
import { tasksStep } from './tasks.js';
import { twoUsers } from './two-users.js';

/** Files the steps run or read, which the entry point locates beside itself (compiled, they all sit in `dist/`). */
export interface TourFiles {
  /** The compiled HTTP tracker (`dist/http.js`), which the Tasks step kills and starts again. */
  readonly http: URL;
  /** The gateway's configuration (`gateway.yaml`). */
  readonly gatewayConfig: URL;
}

/** Runs the steps in order; the first that does not behave as described throws `UnexpectedOutcome`. */
export async function runSteps(
  tour: TourTarget,
  composed: ComposedServer,
  where: string,
  files: TourFiles,
): Promise<void> {
  await negotiationSteps(tour, composed, where);
  await callerSteps(tour);
  await serverSideSteps(tour);
  await deploymentSteps(tour, files);
}

/** Steps 1 to 3: what both sides agree on, then one call that succeeds and one that fails, on the same connection. */
async function negotiationSteps(tour: TourTarget, composed: ComposedServer, where: string): Promise<void> {
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
      `get_ticket with an id that does not exist. The errors extension turns the thrown error into data a client can act on, and also writes it as the draft SEP-3313 ToolFailure.`,
    );
    await structuredError(main);
  } finally {
    await main.close();
  }
}

/** Steps 4 to 10: what each caller gets, remembers, may do and is asked. */
async function callerSteps(tour: TourTarget): Promise<void> {
  section('4. Degradation', `The same call from a plain MCP client that does not advertise ${ERRORS_ID}.`);
  await degradation(tour);

  section(
    '5. Content negotiation',
    'An agent declares the feature tag "agent", a person\'s client "human"; both call get_ticket. The same renderers answer the draft SEP-3279 requestedOutputs.',
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
    'Create a ticket, link a document, post to chat, as one transaction; the post goes to an archived channel. An undo can also be declared as the draft SEP-3172 annotations.recovery.',
  );
  await saga(tour);
}

/** Steps 11 to 17: what the server tells about its data, its work, itself, and other servers. */
async function serverSideSteps(tour: TourTarget): Promise<void> {
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
}

/** Steps 18 to 21: two users, a task that outlives its server, and an unmodified server behind the gateway. */
async function deploymentSteps(tour: TourTarget, files: TourFiles): Promise<void> {
  section('18. Two users', 'Every caller is a principal of its own: here alice and bob, each with a bearer token.');
  if (tour.as === undefined)
    row('', style.dim('Over stdio the server serves one client per process: there is no second caller to show.'));
  else await twoUsers(tour, tour.as);

  section(
    '19. Tasks',
    'A client that declares io.modelcontextprotocol/tasks gets export_report as a task: it polls it, cancels one, and one outlives a restart. The official @modelcontextprotocol/ext-tasks client gets the same tasks.',
  );
  await tasksStep(tour, files.http);

  section(
    '20. A gateway',
    'The official filesystem server, unmodified, behind @ext/gateway: gateway.yaml makes write_file ask a person, safe to retry, and limited to 5 writes a minute.',
  );
  await gatewayStep(tour, files.gatewayConfig);

  section(
    '21. Approval when nobody is at the client',
    'gateway.yaml says an operator approves move_file: an unattended agent is told to wait, an operator decides out of band, the retry runs once.',
  );
  await operatorApprovalStep(tour, files.gatewayConfig);
}
