/**
 * The tracker's tools, registered through core's SDK-neutral
 * `ExtendedServer`: the v2 server (`server/server.ts`) and the v1 server
 * (`server/server-v1.ts`) serve exactly these, through the same composition.
 * Each group of tools lives in a file of its own; this one registers them all.
 */
import type { ExtendedServer } from '@ext/core';
import { registerAttachmentTool } from './attachment-tool.js';
import { registerExportTool } from './export-tool.js';
import { registerChatViewAndPurgeTools, registerTicketTools } from './ticket-tools.js';
import type { Ticket } from '../domain/ticket.js';
import type { TicketEvent, ToolDeps } from './tool-support.js';
import { createTracker, type TrackerOptions } from '../domain/tracker.js';
import type { TrackerEvents } from './tracker-events.js';

export interface TrackerToolsOptions extends TrackerOptions {
  /**
   * Pause after each exported row, in ms, so a person can watch the
   * progress bar. Default 0; the executables set `TRACKER_EXPORT_PACE_MS`
   * (default 60).
   */
  readonly exportPaceMs?: number | undefined;
  /** Where ticket changes are published (`ticket_created`, `ticket_closed`, `ticket_deleted`); none: nothing is published. */
  readonly events?: TrackerEvents | undefined;
}

/** Registers every tracker tool on one extended server instance. */
export function registerTrackerTools(extended: ExtendedServer, options: TrackerToolsOptions = {}): void {
  const tracker = createTracker(extended.store, { now: options.now });
  const pace = options.exportPaceMs ?? 0;
  // Every instance sharing the store delivers the event to its subscribers.
  const publish = async (event: TicketEvent, ticket: Ticket): Promise<Ticket> => {
    await options.events?.publish(extended.store, event, {
      id: ticket.id,
      title: ticket.title,
      status: ticket.status,
      ...(ticket.assignee === undefined ? {} : { assignee: ticket.assignee }),
    });
    return ticket;
  };
  const deps: ToolDeps = { tracker, publish, pace };
  registerTicketTools(extended, deps);
  registerChatViewAndPurgeTools(extended, deps);
  registerExportTool(extended, deps);
  registerAttachmentTool(extended, deps);
}
