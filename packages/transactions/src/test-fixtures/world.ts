/**
 * A tiny ticketing back end for the tests: tools with real effects on an
 * in-memory world, and compensations that undo them. The world lives outside
 * the server so every server instance (the 2026-07-28 line builds one per
 * request) acts on the same state.
 */
import { ExtensionError, type ExtendedServer } from '@ext/core';
import * as z from 'zod';
import type { CompensationDefinition } from '../server.js';

export interface World {
  readonly tickets: Map<string, { title: string; links: string[] }>;
  readonly messages: string[];
  /** Every compensation that ran, in order: `<tool>:<subject>`. */
  readonly undone: string[];
  /** Idempotency keys of compensations already applied. */
  readonly appliedKeys: Set<string>;
  /** Every tool execution, in order. */
  readonly executed: string[];
  nextId: number;
  /** While true, unlinking fails as if the document service were down. */
  unlinkDown: boolean;
  /** A ticket titled `wait` is created only once this settles. */
  gate: Promise<void>;
  /** Called when a `wait` ticket starts waiting on the gate. */
  onWait: () => void;
}

export function createWorld(): World {
  return {
    tickets: new Map(),
    messages: [],
    undone: [],
    appliedKeys: new Set(),
    executed: [],
    nextId: 1,
    unlinkDown: false,
    gate: Promise.resolve(),
    onWait: () => undefined,
  };
}

function idOf(result: { structuredContent?: Record<string, unknown> | undefined }): string {
  return String(result.structuredContent?.id);
}

/** Compensations for the world's tools, registered server-side. */
export function worldCompensations(world: World): Record<string, CompensationDefinition> {
  return {
    create_ticket: {
      description: (_args, result) => `Delete ticket ${idOf(result)}`,
      tool: 'delete_ticket',
      parameters: (_args, result) => ({ ticket_id: idOf(result) }),
      compensate: (_args, _result, ctx) => {
        // The key makes a re-run after a crash a no-op.
        if (world.appliedKeys.has(ctx.idempotencyKey)) return;
        world.appliedKeys.add(ctx.idempotencyKey);
        const id = String(ctx.parameters?.ticket_id);
        world.tickets.delete(id);
        world.undone.push(`create_ticket:${id}`);
      },
    },
    link_doc: {
      description: (args) => `Unlink ${String(args.doc)}`,
      compensate: (args, _result, ctx) => {
        if (world.unlinkDown) {
          throw new ExtensionError('transient', 'DOCS_UNAVAILABLE', 'The document service is unavailable', {
            retryAfterSeconds: 5,
          });
        }
        if (world.appliedKeys.has(ctx.idempotencyKey)) return;
        world.appliedKeys.add(ctx.idempotencyKey);
        const ticket = world.tickets.get(String(args.ticket_id));
        if (ticket) ticket.links = ticket.links.filter((link) => link !== args.doc);
        world.undone.push(`link_doc:${String(args.doc)}`);
      },
    },
    post_message: {
      description: 'Delete the message',
      compensate: (args, _result, ctx) => {
        if (world.appliedKeys.has(ctx.idempotencyKey)) return;
        world.appliedKeys.add(ctx.idempotencyKey);
        const index = world.messages.indexOf(String(args.text));
        if (index >= 0) world.messages.splice(index, 1);
        world.undone.push(`post_message:${String(args.text)}`);
      },
    },
  };
}

/** Registers the world's tools on a server. */
export function registerWorldTools(server: Pick<ExtendedServer, 'registerTool'>, world: World): void {
  server.registerTool(
    'create_ticket',
    { description: 'Create a ticket', inputSchema: z.object({ title: z.string() }) },
    async (args) => {
      if (args.title === 'wait') {
        world.onWait();
        await world.gate;
      }
      const id = `T-${world.nextId++}`;
      world.tickets.set(id, { title: args.title, links: [] });
      world.executed.push(`create_ticket:${id}`);
      return { content: [{ type: 'text', text: `Created ${id}` }], structuredContent: { id } };
    },
  );
  server.registerTool(
    'link_doc',
    { description: 'Link a document to a ticket', inputSchema: z.object({ ticket_id: z.string(), doc: z.string() }) },
    (args) => {
      const ticket = world.tickets.get(args.ticket_id);
      if (!ticket) throw new ExtensionError('permanent', 'RESOURCE_NOT_FOUND', `No ticket ${args.ticket_id}`);
      ticket.links.push(args.doc);
      world.executed.push(`link_doc:${args.doc}`);
      return { content: [{ type: 'text', text: 'Linked' }], structuredContent: { linked: true } };
    },
  );
  server.registerTool(
    'post_message',
    {
      description: 'Post a message',
      inputSchema: z.object({ text: z.string(), fail: z.boolean().optional(), refuse: z.boolean().optional() }),
    },
    (args) => {
      if (args.fail === true)
        throw new ExtensionError('transient', 'CHAT_UNAVAILABLE', 'The chat service is unavailable');
      if (args.refuse === true)
        return { content: [{ type: 'text', text: 'The chat refused the message' }], isError: true };
      world.messages.push(args.text);
      world.executed.push(`post_message:${args.text}`);
      return { content: [{ type: 'text', text: 'Posted' }] };
    },
  );
  server.registerTool(
    'read_ticket',
    { description: 'Read a ticket', annotations: { readOnlyHint: true }, inputSchema: z.object({ id: z.string() }) },
    (args) => ({ content: [{ type: 'text', text: JSON.stringify(world.tickets.get(args.id) ?? null) }] }),
  );
  server.registerTool(
    'rename_ticket',
    { description: 'Rename a ticket (no compensation)', inputSchema: z.object({ id: z.string(), title: z.string() }) },
    (args) => {
      const ticket = world.tickets.get(args.id);
      if (ticket) ticket.title = args.title;
      return { content: [{ type: 'text', text: 'Renamed' }] };
    },
  );
}
