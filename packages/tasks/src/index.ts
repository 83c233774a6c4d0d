/** The `@ext/tasks` entry point: the identifiers, the wire schemas and types, the state machine and the settings reader. */
export {
  TASKS_ID,
  TASKS_ALIAS_ID,
  TASKS_PACKAGE,
  TASKS_WIRE_VERSION,
  TASKS_METHODS,
  TASK_STATUSES,
  TASKS_SCHEMAS,
  tasksJsonSchema,
} from './schema.js';
export type {
  Task,
  TaskStatus,
  CreateTaskResult,
  DetailedTask,
  TaskRefParams,
  UpdateTaskParams,
  TasksSettings,
} from './schema.js';
export { TERMINAL_STATUSES, isTerminal, transition } from './logic.js';
export type { TaskEvent, TaskRecord, TaskError } from './logic.js';
export { getTasksSettings } from './settings.js';
