import { seedValidators, type SeedSchemaName } from '@ext/core/seed-schemas';
import { CheckFailure, CheckSkipped, describe } from './assert.js';
import { connectProbe, type Probe, type ProbeProfile, type Target } from './probe.js';
import { ALL_SUITES } from './checks/index.js';
import type { CheckContext, CheckResult, ExtensionSuite, ServerFacts } from './types.js';

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

/** Runs every applicable check against the target and says whether it conforms. */
export async function runConformance(options: RunOptions): Promise<RunOutcome> {
  const startedAt = new Date();
  const suites = options.suites ?? ALL_SUITES;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const connectOptions = { protocolVersion: options.protocolVersion, timeoutMs };
  const expected = options.expectedFailures ?? new Set<string>();
  const validators = seedValidators();

  const discovery = await connectProbe(options.target, {}, connectOptions);
  let server: ServerFacts;
  try {
    const info = discovery.serverInfo();
    server = {
      name: info.name,
      version: info.version,
      extensions: discovery.serverExtensions(),
      tools: await discovery.listTools(),
      era: discovery.era,
    };
  } finally {
    await discovery.close();
  }

  const results: CheckResult[] = [];
  const covered = new Set<string>();
  for (const suite of suites) {
    const id = suite.extension === 'base' ? undefined : advertisedId(suite, server.extensions);
    if (suite.extension !== 'base' && id === undefined) continue;
    for (const known of suite.ids) covered.add(known);
    if (id !== undefined && !selected(suite, id, options.extensions)) continue;
    const rawSettings = id === undefined ? {} : server.extensions[id];
    const settings = typeof rawSettings === 'object' && rawSettings !== null ? (rawSettings as Record<string, unknown>) : {};
    const defaultProfile: ProbeProfile =
      id === undefined ? {} : { extensions: { [id]: { version: typeof settings.version === 'string' ? settings.version : '1.0' } } };

    for (const check of suite.checks) {
      const probes: Probe[] = [];
      const ctx: CheckContext = {
        server,
        id,
        settings,
        async connect(profile = defaultProfile) {
          const probe = await connectProbe(options.target, profile, connectOptions);
          probes.push(probe);
          return probe;
        },
        allowEffects: options.allowEffects === true,
        requireEffects() {
          if (options.allowEffects !== true) throw new CheckSkipped('executes a tool with effects: run with --allow-effects against a test instance');
        },
        expectSeedShape(value, schema: SeedSchemaName, definition, what = 'payload') {
          const outcome = validators.check(schema, definition)(value);
          if (!outcome.valid) {
            throw new CheckFailure(`${what} does not match seed schema ${schema}${definition ? `#${definition}` : ''}: ${outcome.errors}; got ${describe(value)}`);
          }
        },
        skip(reason) {
          throw new CheckSkipped(reason);
        },
      };
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
      } finally {
        await Promise.allSettled(probes.map((probe) => probe.close()));
      }
      const result: CheckResult = {
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
      results.push(result);
      options.onResult?.(result);
    }
  }

  const untested = Object.keys(server.extensions).filter((id) => !covered.has(id));
  const staleExpectations = results.filter((result) => result.expected === true && result.status === 'passed').map((result) => result.id);
  const failing = results.some(
    (result) => result.level === 'MUST' && (result.status === 'failed' || result.status === 'error') && result.expected !== true,
  );
  return { server, results, untested, staleExpectations, exitCode: failing || staleExpectations.length > 0 ? 1 : 0, startedAt };
}
