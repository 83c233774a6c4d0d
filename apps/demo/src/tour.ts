#!/usr/bin/env node
/**
 * A guided tour for newcomers: starts the tracker (Streamable HTTP in this
 * process, or with `--stdio` the stdio server as a child; `--sdk v1` picks
 * the server built on the v1 SDK), then scripted clients show each extension in
 * turn: what the client sent, what came back, and what it means.
 * Exits 0 when every step behaved as described, 1 otherwise.
 * Each step lives in `tour/`, named after what it shows; this file runs them in order.
 */
import { randomBytes } from 'node:crypto';
import type { ComposedServer } from '@ext/core';
import { ERRORS_ID, ERRORS_PACKAGE_NAME } from '@ext/errors';
import { resolveSdk } from './cli-args.js';
import { MODERN_PROTOCOL_VERSION } from './connect.js';
import { ADMIN_SCOPE } from './tool-limits.js';
import { confirmation } from './tour/confirmation.js';
import { contentNegotiation } from './tour/content-negotiation.js';
import { dataReferencesStep } from './tour/data-references.js';
import { discoveryStep } from './tour/discovery.js';
import { degradation, normalCall, structuredError } from './tour/errors.js';
import { eventsStep } from './tour/events.js';
import { exportReport } from './tour/export-report.js';
import { gatewayStep } from './tour/gateway.js';
import { operatorApprovalStep } from './tour/operator-approval.js';
import { intent } from './tour/intent.js';
import { manifestStep } from './tour/manifest.js';
import { multimodalStep } from './tour/multimodal.js';
import { negotiation, pipeline } from './tour/negotiation.js';
import { print, row, section, style, UnexpectedOutcome } from './tour/output.js';
import { permissions } from './tour/permissions.js';
import { provenance } from './tour/provenance.js';
import { saga } from './tour/saga.js';
import { httpTracker, startSheets, stdioTracker } from './tour/servers.js';
import { sessionStateStep } from './tour/session-state.js';
import type { TourTarget } from './tour/target.js';
import { tasksStep } from './tour/tasks.js';
import { twoUsers } from './tour/two-users.js';

/** Runs the steps in order; the first that does not behave as described throws {@link UnexpectedOutcome}. */
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
      `get_ticket with an id that does not exist. The errors extension turns the thrown error into data a client can act on, and also writes it as the draft SEP-3313 ToolFailure.`,
    );
    await structuredError(main);
  } finally {
    await main.close();
  }

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

  section(
    '19. Tasks',
    'A client that declares io.modelcontextprotocol/tasks gets export_report as a task: it polls it, cancels one, and one outlives a restart. The official @modelcontextprotocol/ext-tasks client gets the same tasks.',
  );
  await tasksStep(tour, new URL('./http.js', import.meta.url));

  section(
    '20. A gateway',
    'The official filesystem server, unmodified, behind @ext/gateway: gateway.yaml makes write_file ask a person, safe to retry, and limited to 5 writes a minute.',
  );
  await gatewayStep(tour, new URL('../gateway.yaml', import.meta.url));

  section(
    '21. Approval when nobody is at the client',
    'gateway.yaml says an operator approves move_file: an unattended agent is told to wait, an operator decides out of band, the retry runs once.',
  );
  await operatorApprovalStep(tour, new URL('../gateway.yaml', import.meta.url));
}

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
  // Secrets made for this tour on purpose: it keeps nothing across runs, so the servers need not warn about them.
  const secrets = {
    TRACKER_SESSION_SECRET: randomBytes(32).toString('base64url'),
    TRACKER_REFS_SECRET: randomBytes(32).toString('base64url'),
  };
  const tracker = process.argv.includes('--stdio')
    ? stdioTracker(sdk, secrets, new URL(sdk === 'v1' ? './stdio-v1.js' : './stdio.js', import.meta.url))
    : await httpTracker(sdk, secrets);
  const { running } = tracker;
  let sheets: Awaited<ReturnType<typeof startSheets>> | undefined;
  try {
    sheets = await startSheets(running);
    print(style.dim(`The sheets server (a second MCP server) listens at ${sheets.url.href}.`));
    await tour(
      {
        target: tracker.target,
        era: sdk === 'v1' ? 'legacy' : 'modern',
        sdk,
        sheets: sheets.url,
        cardUrl: running?.cardUrl,
        as: running?.as,
      },
      tracker.composed,
      tracker.where,
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
