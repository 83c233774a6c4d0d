/** `tasksServer` options: which tools run as tasks, the TTL and poll interval, checked when the factory is called. */
import { ConfigurationError, type CallContext, type ToolCall, type ToolInfo } from '@ext/core';
import { isRecord, positiveIntegerOption, type Resolved } from '@ext/core/kit';
import { randomUUID } from 'node:crypto';

/**
 * How a tool takes part: `'optional'` runs as a task for a client that
 * declares the extension and synchronously for one that does not;
 * `'required'` refuses a client that does not declare it (-32021);
 * `'forbidden'` (the default) always answers synchronously.
 */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** Task support decided per call. */
export type TaskSupportRule = (tool: ToolInfo, call: ToolCall, ctx: CallContext) => TaskSupport;

/** What becomes of a task whose runner died: failed, or run again from its last checkpoint. */
export type InterruptPolicy = 'fail' | 'resume';

export interface TasksServerOptions {
  /**
   * Task support per tool name, or a function asked on every call with the
   * tool, the call and its context (TASK-23: e.g. a tool that asks its
   * questions before it becomes a task). Default: every tool `'forbidden'`.
   */
  readonly tools?: Readonly<Record<string, TaskSupport>> | TaskSupportRule | undefined;
  /** `ttlMs` of every task: how long after its creation it can be read. Default 3600000 (1 h). */
  readonly ttlMs?: number | undefined;
  /** `pollIntervalMs` suggested to clients. Default 1000. */
  readonly pollIntervalMs?: number | undefined;
  /**
   * What happens to a task whose server instance died while it ran, per tool
   * name or as a function of the tool name: `'fail'` (the default) fails it
   * with an error saying so; `'resume'` runs the call again on a live
   * instance, starting from the task's last checkpoint (TASK-19, TASK-20).
   */
  readonly onInterrupt?: Readonly<Record<string, InterruptPolicy>> | ((tool: string) => InterruptPolicy) | undefined;
  /**
   * How long a running task's claim lasts without renewal: the instance
   * running it renews it every third of this, and a task not renewed in
   * time counts as interrupted. Default 30000.
   */
  readonly leaseMs?: number | undefined;
  /** Namespace of every store key and channel this extension uses. Default `"tasks"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The options with defaults applied, task support and the interrupt policy as functions of the tool. */
export type TasksConfig = Resolved<Omit<TasksServerOptions, 'tools' | 'onInterrupt'>> & {
  readonly support: TaskSupportRule;
  readonly onInterrupt: (tool: string) => InterruptPolicy;
  /** This instance, as the owner of the leases it takes. */
  readonly instance: string;
};

const FACTORY = 'tasksServer';
const SUPPORT_VALUES: readonly string[] = ['forbidden', 'optional', 'required'];

function supportRule(tools: TasksServerOptions['tools']): TaskSupportRule {
  if (tools === undefined) return () => 'forbidden';
  if (typeof tools === 'function') return tools;
  if (!isRecord(tools)) {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: tools must be an object of tool names or a function`);
  }
  for (const [name, value] of Object.entries(tools)) {
    if (typeof value !== 'string')
      throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: tools.${name} must be a string`);
    if (!SUPPORT_VALUES.includes(value)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${FACTORY}: tools.${name} must be "forbidden", "optional" or "required", got ${JSON.stringify(value)}`,
      );
    }
  }
  const table = new Map(Object.entries(tools));
  return (tool) => table.get(tool.name) ?? 'forbidden';
}

const POLICY_VALUES: readonly string[] = ['fail', 'resume'];

function interruptRule(policy: TasksServerOptions['onInterrupt']): (tool: string) => InterruptPolicy {
  if (policy === undefined) return () => 'fail';
  if (typeof policy === 'function') return policy;
  if (!isRecord(policy)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${FACTORY}: onInterrupt must be an object of tool names or a function`,
    );
  }
  for (const [name, value] of Object.entries(policy)) {
    if (typeof value !== 'string' || !POLICY_VALUES.includes(value)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${FACTORY}: onInterrupt.${name} must be "fail" or "resume", got ${JSON.stringify(value)}`,
      );
    }
  }
  const table = new Map(Object.entries(policy));
  return (tool) => table.get(tool) ?? 'fail';
}

/** The options with defaults applied; a bad value throws `ConfigurationError` `INVALID_OPTION` naming it. */
export function resolveOptions(options: TasksServerOptions): TasksConfig {
  const {
    tools,
    ttlMs = 3_600_000,
    pollIntervalMs = 1000,
    onInterrupt,
    leaseMs = 30_000,
    keyPrefix = 'tasks',
    now = Date.now,
  } = options;
  if (typeof keyPrefix !== 'string' || keyPrefix === '') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: keyPrefix must be a non-empty string`);
  }
  if (typeof now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${FACTORY}: now must be a function returning milliseconds`);
  }
  return {
    support: supportRule(tools),
    onInterrupt: interruptRule(onInterrupt),
    leaseMs: positiveIntegerOption(FACTORY, 'leaseMs', leaseMs),
    instance: randomUUID(),
    ttlMs: positiveIntegerOption(FACTORY, 'ttlMs', ttlMs),
    pollIntervalMs: positiveIntegerOption(FACTORY, 'pollIntervalMs', pollIntervalMs),
    keyPrefix,
    now,
  };
}
