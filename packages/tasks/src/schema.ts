/**
 * The wire contract of the official Tasks extension (SEP-2663): the
 * identifier, the version this package advertises, and one TypeBox schema
 * per payload (shipped as `schema.json`). Field names are the SEP's own
 * (camelCase on this wire, unlike the `io.github.mcp-ext/*` extensions).
 */
import { extensionId } from '@ext/core';
import Type, { type Static } from 'typebox';

/** The official identifier, `io.modelcontextprotocol/tasks` (SEP-2663). */
export const TASKS_ID = 'io.modelcontextprotocol/tasks';

/**
 * `io.github.mcp-ext/tasks`: advertised beside {@link TASKS_ID} because the
 * core serves an identifier under the reserved prefix only as an alias of one
 * of the package's own. A peer that sends either one is treated alike.
 */
export const TASKS_ALIAS_ID = extensionId('tasks');

/** npm package name. */
export const TASKS_PACKAGE = '@ext/tasks';

/**
 * The settings version advertised under {@link TASKS_ALIAS_ID} (the core
 * requires one on the package's own identifier).
 */
export const TASKS_WIRE_VERSION = '1.0';

/**
 * What both halves advertise under {@link TASKS_ID}: the extension defines no
 * settings and its `TasksExtensionCapability` is the empty object; the
 * official client package treats anything else as no Tasks support (TASK-1).
 */
export const TASKS_OFFICIAL_SETTINGS = { [TASKS_ID]: {} } as const;

/** The request methods of the extension. */
export const TASKS_METHODS = { get: 'tasks/get', update: 'tasks/update', cancel: 'tasks/cancel' } as const;

/** Where this package's JSON Schemas are identified. */
export const SCHEMA_BASE = 'https://mcp-ext.github.io/schemas/tasks/1.0';

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'cancelled', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

const taskFields = {
  taskId: Type.String({ minLength: 1 }),
  status: Type.Union([
    Type.Literal('working'),
    Type.Literal('input_required'),
    Type.Literal('completed'),
    Type.Literal('cancelled'),
    Type.Literal('failed'),
  ]),
  statusMessage: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUpdatedAt: Type.String({ format: 'date-time' }),
  ttlMs: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  pollIntervalMs: Type.Optional(Type.Integer({ minimum: 1 })),
};

/** The `Task` every task-bearing message carries. */
export const TaskSchema = Type.Object(taskFields, { $id: `${SCHEMA_BASE}/task.json`, title: 'Task' });
export type Task = Static<typeof TaskSchema>;

/** The answer to a `tools/call` the server runs as a task: `resultType: "task"` and the seed `Task`, flat. */
export const CreateTaskResultSchema = Type.Object(
  { ...taskFields, resultType: Type.Literal('task') },
  { $id: `${SCHEMA_BASE}/create-task-result.json`, title: 'CreateTaskResult' },
);
export type CreateTaskResult = Static<typeof CreateTaskResultSchema>;

/** The answer to `tasks/get`: the task with what its status carries inlined. */
export const DetailedTaskSchema = Type.Object(
  {
    ...taskFields,
    inputRequests: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))),
    result: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    error: Type.Optional(
      Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
    ),
    // Result metadata; this package puts its progress details under `io.github.mcp-ext/tasks` (TASK-18).
    _meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: `${SCHEMA_BASE}/detailed-task.json`, title: 'DetailedTask' },
);
export type DetailedTask = Static<typeof DetailedTaskSchema>;

/** `tasks/get` and `tasks/cancel` params. */
export const TaskRefParamsSchema = Type.Object(
  { taskId: Type.String({ minLength: 1 }) },
  { $id: `${SCHEMA_BASE}/task-ref-params.json`, title: 'TaskRefParams' },
);
export type TaskRefParams = Static<typeof TaskRefParamsSchema>;

/** `tasks/update` params: answers to outstanding `inputRequests`, by key. */
export const UpdateTaskParamsSchema = Type.Object(
  { taskId: Type.String({ minLength: 1 }), inputResponses: Type.Record(Type.String(), Type.Unknown()) },
  { $id: `${SCHEMA_BASE}/update-task-params.json`, title: 'UpdateTaskParams' },
);
export type UpdateTaskParams = Static<typeof UpdateTaskParamsSchema>;

/** What either side advertises in `capabilities.extensions[TASKS_ID]`. Unknown fields are ignored. */
export const TasksSettingsSchema = Type.Object(
  { version: Type.Optional(Type.String()) },
  { $id: `${SCHEMA_BASE}/settings.json`, title: 'TasksSettings' },
);
export type TasksSettings = Static<typeof TasksSettingsSchema>;

/** Every wire shape of this extension, by name, as JSON Schema 2020-12. */
export const TASKS_SCHEMAS = {
  Task: TaskSchema,
  CreateTaskResult: CreateTaskResultSchema,
  DetailedTask: DetailedTaskSchema,
  TaskRefParams: TaskRefParamsSchema,
  UpdateTaskParams: UpdateTaskParamsSchema,
  TasksSettings: TasksSettingsSchema,
} as const;

/** Every wire shape as one JSON Schema 2020-12 document (shipped as `schema.json`), each under `$defs`. */
export function tasksJsonSchema(): Record<string, unknown> {
  const defs = Object.fromEntries(
    Object.entries(TASKS_SCHEMAS).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema)) as unknown]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE}/tasks.json`,
    title: 'MCP Tasks extension (io.modelcontextprotocol/tasks, SEP-2663)',
    description: 'Wire payloads of the Tasks extension as this package speaks them: tasks, method params, settings.',
    $defs: defs,
  };
}
