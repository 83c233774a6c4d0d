/** The README's client example: a tool call that may become a task, polled to its result. */
// #region client
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSIONS } from '@ext/core';
import { extendClient } from '@ext/core/sdk-v2/client';
import { callTool, pollTask, tasksClient, updateTask, type TaskRequester } from '@ext/tasks/client';

const client = new Client(
  { name: 'dashboard', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: PROTOCOL_VERSIONS.modern } } }, // tasks exist on 2026-07-28 only
);
const extended = extendClient(client, [tasksClient()]); // declares io.modelcontextprotocol/tasks on every request
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3000/mcp')));

export async function exportReport(month: string): Promise<unknown> {
  const outcome = await callTool(rawRequester, 'export_report', { month });
  if (outcome.kind === 'result') return outcome.result; // the server answered at once
  const task = await pollTask(extended, outcome.task.taskId, {
    onStatus: async (current) => {
      // input_required: answer every request by its key.
      if (current.status === 'input_required') {
        await updateTask(extended, current.taskId, await askUser(current.inputRequests ?? {}));
      }
    },
  });
  if (task.status === 'failed') throw new Error(task.error?.message);
  return task.result; // completed: the tool's result; cancelled: undefined
}
// #endregion client

/** A JSON-RPC link that hands back the raw result (the SDK client refuses `resultType: "task"`). */
declare const rawRequester: TaskRequester;
declare function askUser(requests: Record<string, unknown>): Promise<Record<string, unknown>>;
