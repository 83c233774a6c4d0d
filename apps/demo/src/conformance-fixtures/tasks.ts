/**
 * The fixtures of the official suite's `tasks-*` scenarios (the Tasks
 * extension, SEP-2663): a synchronous greeting, and tools the tracker's
 * `tasksServer` runs as tasks for a client that declares the extension: a
 * slow computation that stops when cancelled, a tool error, a JSON-RPC
 * error, questions asked during the task, and a tool that asks its question
 * before the task exists (and the per-call rule for it). All run through the
 * extension pipeline.
 */
import {
  ErrorCodes,
  WireError,
  type CallContext,
  type ExtendedServer,
  type ToolCall,
  type ToolInfo,
  type ToolResult,
} from '@ext/core';
import { requestTaskInput, type TaskSupport } from '@ext/tasks/server';
import { inputRequired, inputResponse, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { text } from './media.js';

/** How each fixture takes part in tasks; `greet` is not listed, so it always answers synchronously. */
export const CONFORMANCE_TASK_TOOLS: Readonly<Record<string, TaskSupport>> = {
  slow_compute: 'optional',
  // The suite calls it without the extension expecting -32021, and with it expecting a task.
  failing_job: 'required',
  protocol_error_job: 'optional',
  confirm_delete: 'optional',
  multi_input: 'optional',
  test_tool_with_task: 'required',
};

/**
 * Task support per call (the function form of `tasksServer`'s `tools`):
 * `test_tool_with_task` asks for a name with an `input_required` round before
 * it works, so until the retried call carries the name it runs as if it had
 * no task support, and the task begins with the retry (SEP-2663:
 * multi-round-trip exchanges are resolved before the `CreateTaskResult`).
 */
export function trackerTaskSupport(tool: ToolInfo, _call: ToolCall, ctx: CallContext): TaskSupport {
  if (tool.name === 'export_report') return 'optional';
  if (tool.name === 'test_tool_with_task' && ctx.inputRound?.responses.user_name === undefined) return 'forbidden';
  return CONFORMANCE_TASK_TOOLS[tool.name] ?? 'forbidden';
}

/** A yes/no form as an `elicitation/create` request. */
const confirmation = (message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });

/** Waits `ms`, or rejects as soon as `signal` aborts (a cancelled task). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/** Registers the tasks fixtures. */
export function registerTaskFixtures(extended: ExtendedServer): void {
  registerOutcomeFixtures(extended);
  registerInputFixtures(extended);
}

/** A synchronous tool, and task tools that complete, fail as a tool and fail as a protocol error. */
function registerOutcomeFixtures(extended: ExtendedServer): void {
  extended.registerTool(
    'greet',
    { description: 'Greets synchronously; never a task.', inputSchema: z.object({ name: z.string() }) },
    ({ name }) => text(`Hello, ${name}!`),
  );
  extended.registerTool(
    'slow_compute',
    {
      description: 'Sleeps the given seconds, then answers; stops when its task is cancelled.',
      inputSchema: z.object({ seconds: z.number().min(0).max(600), label: z.string().optional() }),
    },
    async ({ seconds, label }, ctx) => {
      await sleep(seconds * 1000, ctx.signal);
      return text(`Computed ${label ?? 'result'} after ${seconds} s`);
    },
  );
  extended.registerTool(
    'failing_job',
    { description: 'Reports a tool error after about a second.' },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return { content: [{ type: 'text', text: 'The job failed' }], isError: true };
    },
  );
  extended.registerTool('protocol_error_job', { description: 'Fails with a JSON-RPC error.' }, () => {
    throw new WireError(ErrorCodes.InternalError, 'The job crashed');
  });
}

/** Task tools that ask the client during the task, and one that asks before its task exists. */
function registerInputFixtures(extended: ExtendedServer): void {
  extended.registerTool(
    'confirm_delete',
    {
      description: 'Asks to confirm, as a task in input_required, then answers.',
      inputSchema: z.object({ filename: z.string() }),
    },
    async ({ filename }, ctx) => {
      const { confirm } = await requestTaskInput(ctx, { confirm: confirmation(`Delete ${filename}?`) });
      const accepted = (confirm as { action?: unknown } | undefined)?.action === 'accept';
      return text(accepted ? `Deleted ${filename}` : `Kept ${filename}`);
    },
  );
  extended.registerTool(
    'multi_input',
    { description: 'Asks two questions at once during its task.' },
    async (_args, ctx) => {
      const answers = await requestTaskInput(ctx, {
        first: confirmation('First question: go on?'),
        second: confirmation('Second question: really?'),
      });
      return text(`Answered: ${Object.keys(answers).join(', ')}`);
    },
  );
  extended.registerTool(
    'test_tool_with_task',
    { description: 'Asks for a name with an input_required result, then greets as a task.' },
    (_args, ctx) => {
      const answer = inputResponse((ctx.sdkContext as ServerContext).mcpReq.inputResponses, 'user_name');
      if (answer.kind !== 'elicit' || answer.action !== 'accept' || typeof answer.content?.name !== 'string') {
        const ask = inputRequired.elicit({
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return inputRequired({ inputRequests: { user_name: ask } }) as unknown as ToolResult;
      }
      return text(`Hello, ${answer.content.name}!`);
    },
  );
}
