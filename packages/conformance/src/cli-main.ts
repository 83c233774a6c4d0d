/** The `mcp-ext-conformance` command: its options, the run, and the table, report and exit code it ends with. */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ALL_SUITES } from './checks/index.js';
import { parseExpectedFailures } from './expected.js';
import type { Target } from './probe.js';
import { renderTable, toConformanceReport } from './report.js';
import { runConformance } from './runner.js';

const USAGE = `Usage:
  mcp-ext-conformance --url http://127.0.0.1:3000/mcp [options]
  mcp-ext-conformance [options] -- <command> [args...]     (a stdio server)

Options:
  --protocol-version <v>     2026-07-28, a legacy revision such as 2025-11-25, or auto (default)
  --extension <id|name>      test only this extension (repeatable); base checks always run
  --json <file>              write a ConformanceReport (seed conformance.schema.json)
  --expected-failures <file> YAML list of check ids known to fail
  --allow-effects            let checks execute tools that are not read-only (test instances only)
  --task-tool <name>         a tool that runs as a task, for the tasks checks
  --timeout <ms>             per check (default 30000)
  --verbose                  show the stdio server's stderr
  --list                     list the checks and exit
  -h, --help

Exit codes: 0 conforms, 1 a MUST check failed or an expected failure passed, 2 usage or connection error.`;

function listChecks(): string {
  return ALL_SUITES.flatMap((suite) =>
    suite.checks.map(
      (check) => `${check.id.padEnd(48)} ${`${check.requirement} ${check.level}`.padEnd(14)} ${check.title}`,
    ),
  ).join('\n');
}

/** Where the CLI writes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const consoleIo: CliIo = {
  out: (text) => {
    console.log(text);
  },
  err: (text) => {
    console.error(text);
  },
};

/** Runs the CLI with `argv` (without `node` and the script) and resolves to its exit code. */
export async function main(argv: readonly string[], io: CliIo = consoleIo): Promise<number> {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...own],
      options: {
        url: { type: 'string' },
        'protocol-version': { type: 'string' },
        extension: { type: 'string', multiple: true },
        json: { type: 'string' },
        'expected-failures': { type: 'string' },
        'allow-effects': { type: 'boolean' },
        'task-tool': { type: 'string' },
        timeout: { type: 'string' },
        verbose: { type: 'boolean' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values } = parsed;
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  if (values.list === true) {
    io.out(listChecks());
    return 0;
  }
  const [executable, ...args] = command;
  if ((values.url === undefined) === (executable === undefined)) {
    io.err(`Give exactly one server: --url <url> or -- <command> [args...]\n\n${USAGE}`);
    return 2;
  }
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)) {
    io.err(`--timeout must be a positive integer of milliseconds, got ${values.timeout ?? ''}`);
    return 2;
  }
  const target: Target =
    values.url !== undefined
      ? { kind: 'http', url: values.url }
      : { kind: 'stdio', command: executable ?? '', args, stderr: values.verbose === true ? 'inherit' : 'ignore' };
  const expectedFailures =
    values['expected-failures'] === undefined
      ? undefined
      : parseExpectedFailures(readFileSync(values['expected-failures'], 'utf8'), values['expected-failures']);

  let outcome;
  try {
    outcome = await runConformance({
      target,
      protocolVersion: values['protocol-version'],
      extensions: values.extension,
      expectedFailures,
      allowEffects: values['allow-effects'] === true,
      taskTool: values['task-tool'],
      timeoutMs,
    });
  } catch (error) {
    io.err(`Could not test the server: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  io.out(renderTable(outcome));
  if (values.json !== undefined)
    writeFileSync(values.json, `${JSON.stringify(toConformanceReport(outcome), null, 2)}\n`);
  return outcome.exitCode;
}
