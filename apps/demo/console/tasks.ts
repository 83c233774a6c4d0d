/**
 * The console's task panel: export_report run as an official MCP task
 * (`io.modelcontextprotocol/tasks`, 2026-07-28). A button starts it, a live
 * status line follows it by polling `tasks/get` (status, message, progress),
 * a Cancel button sends `tasks/cancel`. The task id is kept for this tab, so
 * polling goes on while the server restarts, and after a reload of the page.
 */
import { OFFICIAL_TASKS_ID, taskLink, TaskLinkError, type TaskLink } from '../src/client/task-link.js';
import { element, record, type CallOutcome, type Json } from './page.js';

/** Where this tab keeps the task it follows. */
const STORAGE_KEY = 'tracker-task';
/** The `_meta` key under which the tracker's Tasks extension reports progress and resumes. */
const PROGRESS_META = 'io.github.mcp-ext/tasks';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_INTERVAL_MS = 1000;

/** What the status line shows of one `tasks/get` answer. */
export interface TaskView {
  readonly status: string;
  readonly line: string;
  /** Done over total, when the task reported both. */
  readonly fraction: number | undefined;
  /** The execution that runs it, when a restarted server took it up again (2 or more). */
  readonly execution: number | undefined;
  readonly terminal: boolean;
}

/** What the page shows when a task ends (the console's result panel). */
export type TaskOutcome = CallOutcome;

/** The status line for a task as `tasks/get` answered it: `working: row 5 of 16 (31%)`. */
export function viewOf(task: Json): TaskView {
  const status = typeof task.status === 'string' ? task.status : 'unknown';
  const progress = record(record(task._meta)?.[PROGRESS_META]);
  const fraction = typeof progress?.progress === 'number' ? progress.progress : undefined;
  const execution =
    progress?.resumed === true && typeof progress.executions === 'number' ? progress.executions : undefined;
  const message = typeof task.statusMessage === 'string' ? `: ${task.statusMessage}` : '';
  const percent = fraction === undefined ? '' : ` (${String(Math.round(fraction * 100))}%)`;
  const error = record(task.error);
  const failure = typeof error?.message === 'string' ? `: ${error.message}` : '';
  return {
    status,
    line: `${status}${status === 'failed' ? failure : message}${percent}`,
    fraction,
    execution,
    terminal: TERMINAL.has(status),
  };
}

/** How the page shows a task that ended. */
function outcomeOf(task: Json): TaskOutcome {
  switch (task.status) {
    case 'completed':
      return {
        result: record(task.result) ?? {},
        explanation: 'The task completed: tasks/get carried its result inline.',
      };
    case 'cancelled':
      return { result: task, explanation: 'The task was cancelled: the export stopped where it was.' };
    default:
      return { result: task, explanation: 'The task failed: tasks/get carried the error.' };
  }
}

/** The panel's elements. */
interface Panel {
  readonly start: HTMLButtonElement;
  readonly cancel: HTMLButtonElement;
  readonly status: HTMLElement;
  readonly id: HTMLElement;
  readonly progress: HTMLProgressElement;
}

function panel(): Panel {
  return {
    start: element('task-start') as HTMLButtonElement,
    cancel: element('task-cancel') as HTMLButtonElement,
    status: element('task-status'),
    id: element('task-id'),
    progress: element('task-progress') as HTMLProgressElement,
  };
}

/** Shows one answer; `resumedAs` is the execution a restarted server runs, once one has been seen. */
function render(ui: Panel, view: TaskView, resumedAs: number | undefined): void {
  ui.status.dataset.status = view.status;
  ui.status.dataset.reachable = 'true';
  ui.status.dataset.resumed = String(resumedAs !== undefined);
  const resumed = resumedAs === undefined ? '' : `, resumed by a restarted server (execution ${String(resumedAs)})`;
  ui.status.textContent = `${view.line}${resumed}`;
  if (view.fraction !== undefined) ui.progress.value = view.fraction;
  if (view.status === 'completed') ui.progress.value = 1;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => window.setTimeout(resolve, ms));
}

/** Polls `tasks/get` until the task ends; an unreachable server is asked again at the same pace. */
async function follow(link: TaskLink, taskId: string, ui: Panel, show: (outcome: TaskOutcome) => void) {
  let interval = DEFAULT_INTERVAL_MS;
  let resumedAs: number | undefined;
  for (;;) {
    try {
      const task = await link.request('tasks/get', { taskId });
      const view = viewOf(task);
      resumedAs = view.execution ?? resumedAs;
      render(ui, view, resumedAs);
      if (view.terminal) {
        show(outcomeOf(task));
        return;
      }
      if (typeof task.pollIntervalMs === 'number') interval = task.pollIntervalMs;
    } catch (error) {
      // The server answered with an error: the task is gone for it (expired, or another store).
      if (error instanceof TaskLinkError) {
        ui.status.dataset.status = 'lost';
        ui.status.textContent = `The server no longer knows task ${taskId}: ${error.message}`;
        return;
      }
      ui.status.dataset.reachable = 'false';
      ui.status.textContent = `The server did not answer (${String(error)}); asking again, the task id is kept.`;
    }
    await pause(interval);
  }
}

/** Follows `taskId` to its end, with Cancel available meanwhile; forgets it once it ended. */
async function track(link: TaskLink, taskId: string, ui: Panel, show: (outcome: TaskOutcome) => void) {
  window.sessionStorage.setItem(STORAGE_KEY, taskId);
  ui.id.textContent = `Task ${taskId}`;
  ui.id.dataset.taskId = taskId;
  ui.start.disabled = true;
  ui.cancel.disabled = false;
  ui.progress.value = 0;
  try {
    await follow(link, taskId, ui, show);
  } finally {
    window.sessionStorage.removeItem(STORAGE_KEY);
    ui.start.disabled = false;
    ui.cancel.disabled = true;
  }
}

/** Starts export_report; the server answers with a task (or, if it chooses, with the result itself). */
async function startExport(link: TaskLink, ui: Panel, show: (outcome: TaskOutcome) => void): Promise<void> {
  ui.start.disabled = true;
  ui.status.textContent = 'Starting the export…';
  try {
    const answer = await link.request('tools/call', { name: 'export_report', arguments: {} });
    if (answer.resultType !== 'task' || typeof answer.taskId !== 'string') {
      show({ result: answer, explanation: 'The server answered at once, without a task.' });
      ui.status.textContent = 'No task: the server answered at once.';
      return;
    }
    await track(link, answer.taskId, ui, show);
  } finally {
    ui.start.disabled = false;
  }
}

/**
 * Wires the panel: enabled when the server advertises the official Tasks
 * extension and has export_report; picks up the task this tab followed
 * before a reload.
 */
export function setUpTasks(options: {
  readonly token: string | undefined;
  readonly advertised: Json;
  readonly tools: ReadonlySet<string>;
  readonly show: (outcome: TaskOutcome) => void;
}): void {
  const ui = panel();
  if (!(OFFICIAL_TASKS_ID in options.advertised) || !options.tools.has('export_report')) {
    ui.status.textContent = `This server does not run export_report as a task (${OFFICIAL_TASKS_ID}).`;
    return;
  }
  const link = taskLink({
    url: new URL('/mcp', window.location.origin),
    token: options.token,
    clientInfo: { name: 'tracker-console', version: '0.0.0' },
  });
  const failed = (error: unknown) => {
    ui.status.dataset.status = 'error';
    ui.status.textContent = `The request failed: ${String(error)}`;
  };
  ui.start.disabled = false;
  ui.start.addEventListener('click', () => {
    startExport(link, ui, options.show).catch(failed);
  });
  ui.cancel.addEventListener('click', () => {
    const taskId = ui.id.dataset.taskId;
    if (taskId === undefined) return;
    ui.cancel.disabled = true;
    link.request('tasks/cancel', { taskId }).catch((error: unknown) => {
      ui.cancel.disabled = false;
      failed(error);
    });
  });
  const kept = window.sessionStorage.getItem(STORAGE_KEY);
  if (kept !== null) track(link, kept, ui, options.show).catch(failed);
}
