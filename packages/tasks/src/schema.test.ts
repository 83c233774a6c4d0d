import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createTaskResult, detailedTask, newTaskRecord, transition } from './logic.js';
import { SCHEMA_BASE, tasksJsonSchema } from './schema.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(tasksJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('TASK-3 TASK-6: compiles under JSON Schema 2020-12 and accepts what the server sends', () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    ajv.addSchema(tasksJsonSchema());
    const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
    const record = newTaskRecord({ taskId: 't', principal: 'p', tool: 'x', now: 0, ttlMs: 10, pollIntervalMs: 5 });
    expect(check('create-task-result', createTaskResult(record))).toBe(true);
    expect(check('detailed-task', detailedTask(transition(record, { type: 'complete', result: {} }, 1)))).toBe(true);
    expect(check('create-task-result', { ...createTaskResult(record), ttlMs: 1.5 })).toBe(false);
    expect(check('update-task-params', { taskId: 't' })).toBe(false);
  });
});
