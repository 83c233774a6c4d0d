/**
 * The server half of `@ext/tasks` (the `./server` entry): the extension
 * descriptor, the routing of SEP-2663's method names, and what a handler
 * running as a task may use.
 */
import type { ServerExtension } from '@ext/core';
import { taskMethods } from './methods.js';
import { scopeOf, tasksMiddleware } from './middleware.js';
import { scanForOrphans, type TaskRunners } from './recovery.js';
import { resolveOptions, type TasksServerOptions } from './options.js';
import {
  TASKS_ALIAS_ID,
  TASKS_ID,
  TASKS_OFFICIAL_SETTINGS,
  TASKS_PACKAGE,
  TASKS_WIRE_VERSION,
  TasksSettingsSchema,
} from './schema.js';

export type { InterruptPolicy, TaskSupport, TaskSupportRule, TasksServerOptions } from './options.js';
export { requestTaskInput, type TaskInputRequest } from './input.js';
export { getTaskId } from './locals.js';

/**
 * The server half of the official Tasks extension: calls to the tools named
 * in `tools` from a client that declares `io.modelcontextprotocol/tasks` on
 * the request are answered with a task handle and run in the background;
 * the client polls `tasks/get`, answers input with `tasks/update` and may
 * `tasks/cancel`. Tasks are kept in the server's store, per principal.
 */
export function tasksServer(options: TasksServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const runners: TaskRunners = new WeakMap();
  return {
    side: 'server',
    keepsCallerState: true,
    name: TASKS_PACKAGE,
    ids: [TASKS_ALIAS_ID, TASKS_ID],
    reservedAliases: [TASKS_ID],
    settings: { version: TASKS_WIRE_VERSION },
    aliasSettings: TASKS_OFFICIAL_SETTINGS,
    peerSettings: TasksSettingsSchema,
    stage: 'tasks',
    middleware: tasksMiddleware(config),
    namedMethods: taskMethods(config, runners),
    attach: ({ store, logger, runTool }) => {
      if (runTool !== undefined) runners.set(store, runTool);
      // After the factory registered its tools: the scan may run some of them again.
      setTimeout(() => {
        scanForOrphans(config, scopeOf(config, { store }), runTool, logger).catch((error: unknown) => {
          logger.warn('tasks: could not look for tasks left by a stopped server', { error });
        });
      }, 0).unref();
    },
  };
}
