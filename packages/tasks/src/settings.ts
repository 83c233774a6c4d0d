/** The reader of the peer's Tasks settings, as advertised in `capabilities.extensions`. */
import { settingsReader } from '@ext/core/kit';
import { TASKS_ID, TasksSettingsSchema, type TasksSettings } from './schema.js';

/**
 * The peer's settings for `io.modelcontextprotocol/tasks` (an empty object
 * when it advertises the extension as SEP-2663 does), or `undefined` when it
 * does not advertise it. Never throws.
 */
export const getTasksSettings: (extensions: unknown) => TasksSettings | undefined = settingsReader({
  id: TASKS_ID,
  schema: TasksSettingsSchema,
  majors: [1],
});
