/** The types checks are written against: a check, a suite, what a check may use, and what it reports. */
import type { SeedSchemaName } from '@ext/core/seed-schemas';
import type { ListedTool, Probe, ProbeProfile } from './probe.js';

export type { ListedTool } from './probe.js';

/** How binding a requirement is: a MUST failure fails the run, a SHOULD failure warns. */
export type RequirementLevel = 'MUST' | 'SHOULD';

/** The outcome of one check. `error` means the kit could not run it (the server hung up, timed out). */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'error';

/** What the kit learned about the server before running any check. */
export interface ServerFacts {
  readonly name: string;
  readonly version: string;
  /** The server's `capabilities.extensions` (`{}` when it advertised none). */
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly tools: readonly ListedTool[];
  /** `legacy` (initialize) or `modern` (2026-07-28). */
  readonly era: 'legacy' | 'modern';
}

/** Everything a check may use: the server's facts and fresh connections, nothing of the server's code. */
export interface CheckContext {
  readonly server: ServerFacts;
  /** The identifier under test as the server advertised it (`base` checks get `undefined`). */
  readonly id: string | undefined;
  /** The settings the server advertised for it (`{}` for `base`). */
  readonly settings: Readonly<Record<string, unknown>>;
  /**
   * A connection whose client advertises `profile.extensions` (by default
   * the extension under test with `{version: <server's version>}`); `[]`
   * advertises nothing. Connections are cached per profile and closed by the runner.
   */
  connect(profile?: ProbeProfile): Promise<Probe>;
  /**
   * Whether checks may execute tools that are not read-only (with sample
   * arguments). Off by default; refusal paths (calls a conforming server
   * must refuse before executing) run regardless.
   */
  readonly allowEffects: boolean;
  /**
   * Whether the kit's requests carry credentials (an HTTP target with
   * headers): the server may then grant the kit scopes it cannot see, so a
   * call that needs a scope and runs is not proof of a missing check.
   */
  readonly credentialed: boolean;
  /**
   * A tool the user named as running as a task (`--task-tool`), for the
   * tasks suite; without one it looks for `execution.taskSupport` in `tools/list`.
   */
  readonly taskTool?: string | undefined;
  /** Ends the check as skipped unless effects are allowed. */
  requireEffects(): void;
  /** Throws a failure unless `value` validates against a seed schema (or one of its `$defs`). */
  expectSeedShape(value: unknown, schema: SeedSchemaName, definition?: string, what?: string): void;
  /** Ends the check as skipped (the server offers nothing this check can exercise). */
  skip(reason: string): never;
}

/** One conformance check: cites the numbered requirement of a package's SPEC.md that it verifies. */
export interface Check {
  /** Unique, stable: `<extension>/<slug>`; what expected-failures files list. */
  readonly id: string;
  /** e.g. `ERR-3`, `CORE-1`. */
  readonly requirement: string;
  readonly level: RequirementLevel;
  /** One line: what a conforming server does. */
  readonly title: string;
  run(ctx: CheckContext): Promise<void>;
}

/** The checks of one extension, run when the server advertises one of `ids`. */
export interface ExtensionSuite {
  /** The extension's name as in the identifier (`errors`), or `base` for the checks every server gets. */
  readonly extension: string;
  /** Identifiers that select this suite (the newest one the server advertises is tested). */
  readonly ids: readonly string[];
  /** Where its requirements are written, e.g. `packages/errors/SPEC.md`. */
  readonly spec: string;
  readonly checks: readonly Check[];
}

export interface CheckResult {
  readonly id: string;
  readonly extension: string;
  readonly requirement: string;
  readonly level: RequirementLevel;
  readonly title: string;
  readonly status: CheckStatus;
  readonly message?: string | undefined;
  readonly durationMs: number;
  /** Listed in the expected-failures file. */
  readonly expected?: boolean | undefined;
}
