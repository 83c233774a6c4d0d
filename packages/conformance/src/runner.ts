/** `runConformance`: connects, picks the suites the server advertises, runs each check under its timeout, and judges the run. */
import { seedValidators, type SeedSchemaName } from '@ext/core/seed-schemas';
import { CheckFailure, CheckSkipped, describe } from './assert.js';
import { connectProbe, type ConnectOptions, type Probe, type ProbeProfile, type Target } from './probe.js';
import { ALL_SUITES } from './checks/index.js';
import type { Check, CheckContext, CheckResult, ExtensionSuite, ServerFacts } from './types.js';

export interface RunOptions {
  readonly target: Target;
  /** See `ConnectOptions.protocolVersion`; default `auto`. */
  readonly protocolVersion?: string | undefined;
  /** Test only these extensions (identifiers or names, e.g. `errors`); base checks always run. */
  readonly extensions?: readonly string[] | undefined;
  /** The suites to choose from. Default: every suite this kit ships. */
  readonly suites?: readonly ExtensionSuite[] | undefined;
  /** Check ids known to fail (they do not fail the run; if one passes, the run fails so the list cannot rot). */
  readonly expectedFailures?: ReadonlySet<string> | undefined;
  /** Let checks execute tools that are not read-only (see `CheckContext.allowEffects`). Default `false`. */
  readonly allowEffects?: boolean | undefined;
  /** A tool that runs as a task, for the tasks suite (see `CheckContext.taskTool`). */
  readonly taskTool?: string | undefined;
  /** Per check. Default 30 s. */
  readonly timeoutMs?: number | undefined;
  /** Called as each check finishes (for live output). */
  readonly onResult?: ((result: CheckResult) => void) | undefined;
}

export interface RunOutcome {
  readonly server: ServerFacts;
  readonly results: readonly CheckResult[];
  /** Identifiers the server advertised that no suite of this kit covers. */
  readonly untested: readonly string[];
  /** Expected failures that passed: the baseline is stale. */
  readonly staleExpectations: readonly string[];
  /** 0 when every MUST check passed (or was expected to fail) and no expectation is stale; else 1. */
  readonly exitCode: 0 | 1;
  readonly startedAt: Date;
}

/**
 * Connections by what they advertise, shared by the checks of one run:
 * starting a stdio server per check would dominate the run's time. A
 * profile that answers elicitation gets a connection of its own.
 */
class ConnectionPool {
  private readonly open = new Map<string, Promise<Probe>>();
  private readonly own: Promise<Probe>[] = [];

  constructor(
    private readonly target: Target,
    private readonly options: { protocolVersion?: string | undefined; timeoutMs?: number | undefined },
  ) {}

  get(profile: ProbeProfile): Promise<Probe> {
    if (profile.elicit !== undefined) {
      const probe = connectProbe(this.target, profile, this.options);
      this.own.push(probe);
      return probe;
    }
    const key = JSON.stringify(profile.extensions ?? {});
    let probe = this.open.get(key);
    if (probe === undefined) {
      probe = connectProbe(this.target, profile, this.options);
      // A failed connection is not cached: the next check tries again.
      probe.catch(() => this.open.delete(key));
      this.open.set(key, probe);
    }
    return probe;
  }

  async closeAll(): Promise<void> {
    const all = [...this.open.values(), ...this.own];
    this.open.clear();
    this.own.length = 0;
    await Promise.allSettled(all.map(async (probe) => (await probe).close()));
  }
}

/** The identifier of `suite` to test: the newest of its identifiers the server advertises. */
function advertisedId(suite: ExtensionSuite, extensions: Readonly<Record<string, unknown>>): string | undefined {
  return [...suite.ids].reverse().find((id) => id in extensions);
}

function selected(suite: ExtensionSuite, id: string, wanted: readonly string[] | undefined): boolean {
  if (suite.extension === 'base' || wanted === undefined || wanted.length === 0) return true;
  return wanted.includes(id) || wanted.includes(suite.extension);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} did not finish within ${String(ms)} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

/** What the server says of itself before any check: identity, advertised extensions, tools and era. */
async function serverFacts(target: Target, connectOptions: ConnectOptions): Promise<ServerFacts> {
  const discovery = await connectProbe(target, {}, connectOptions);
  try {
    const info = discovery.serverInfo();
    return {
      name: info.name,
      version: info.version,
      extensions: discovery.serverExtensions(),
      tools: await discovery.listTools(),
      era: discovery.era,
    };
  } finally {
    await discovery.close();
  }
}

/** What the checks of one suite may use; `id` is the identifier under test (`undefined` for base). */
function checkContext(
  server: ServerFacts,
  id: string | undefined,
  connections: ConnectionPool,
  options: RunOptions,
  validators: ReturnType<typeof seedValidators>,
): CheckContext {
  const rawSettings = id === undefined ? {} : server.extensions[id];
  const settings =
    typeof rawSettings === 'object' && rawSettings !== null ? (rawSettings as Record<string, unknown>) : {};
  const defaultProfile: ProbeProfile =
    id === undefined
      ? {}
      : { extensions: { [id]: { version: typeof settings.version === 'string' ? settings.version : '1.0' } } };
  return {
    server,
    id,
    settings,
    connect: (profile = defaultProfile) => connections.get(profile),
    allowEffects: options.allowEffects === true,
    credentialed: options.target.kind === 'http' && Object.keys(options.target.headers ?? {}).length > 0,
    taskTool: options.taskTool,
    requireEffects() {
      if (options.allowEffects !== true)
        throw new CheckSkipped('executes a tool with effects: run with --allow-effects against a test instance');
    },
    expectSeedShape(value, schema: SeedSchemaName, definition, what = 'payload') {
      const outcome = validators.check(schema, definition)(value);
      if (!outcome.valid) {
        throw new CheckFailure(
          `${what} does not match seed schema ${schema}${definition ? `#${definition}` : ''}: ${outcome.errors}; got ${describe(value)}`,
        );
      }
    },
    skip(reason) {
      throw new CheckSkipped(reason);
    },
  };
}

/** Runs one check under the timeout and says how it went. */
async function runCheck(
  check: Check,
  suite: ExtensionSuite,
  ctx: CheckContext,
  timeoutMs: number,
  expected: ReadonlySet<string>,
): Promise<CheckResult> {
  const began = performance.now();
  let status: CheckResult['status'];
  let message: string | undefined;
  try {
    await withTimeout(check.run(ctx), timeoutMs, check.id);
    status = 'passed';
  } catch (error) {
    if (error instanceof CheckSkipped) {
      status = 'skipped';
      message = error.message;
    } else if (error instanceof CheckFailure) {
      status = 'failed';
      message = error.message;
    } else {
      // The server broke the exchange itself (an unexpected JSON-RPC error, a hang-up, a timeout).
      status = 'error';
      message = error instanceof Error ? error.message : String(error);
    }
  }
  return {
    id: check.id,
    extension: suite.extension,
    requirement: check.requirement,
    level: check.level,
    title: check.title,
    status,
    message,
    durationMs: Math.round(performance.now() - began),
    expected: expected.has(check.id) ? true : undefined,
  };
}

/** Runs every applicable check against the target and says whether it conforms. */
export async function runConformance(options: RunOptions): Promise<RunOutcome> {
  const startedAt = new Date();
  const suites = options.suites ?? ALL_SUITES;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const connectOptions = { protocolVersion: options.protocolVersion, timeoutMs };
  const expected = options.expectedFailures ?? new Set<string>();
  const validators = seedValidators();
  const server = await serverFacts(options.target, connectOptions);

  const results: CheckResult[] = [];
  const covered = new Set<string>();
  const connections = new ConnectionPool(options.target, connectOptions);
  try {
    for (const suite of suites) {
      const id = suite.extension === 'base' ? undefined : advertisedId(suite, server.extensions);
      if (suite.extension !== 'base' && id === undefined) continue;
      for (const known of suite.ids) covered.add(known);
      if (id !== undefined && !selected(suite, id, options.extensions)) continue;
      for (const check of suite.checks) {
        const ctx = checkContext(server, id, connections, options, validators);
        const result = await runCheck(check, suite, ctx, timeoutMs, expected);
        results.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    await connections.closeAll();
  }

  const untested = Object.keys(server.extensions).filter((id) => !covered.has(id));
  const staleExpectations = results
    .filter((result) => result.expected === true && result.status === 'passed')
    .map((result) => result.id);
  const failing = results.some(
    (result) =>
      result.level === 'MUST' && (result.status === 'failed' || result.status === 'error') && result.expected !== true,
  );
  return {
    server,
    results,
    untested,
    staleExpectations,
    exitCode: failing || staleExpectations.length > 0 ? 1 : 0,
    startedAt,
  };
}
