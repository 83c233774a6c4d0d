/**
 * The tour from start to end: reads the command line, starts the tracker
 * (Streamable HTTP in this process, or with `--stdio` the stdio server as a
 * child; `--sdk v1` picks the server built on the v1 SDK) and the sheets
 * server, runs the steps, and says how it went.
 */
import { randomBytes } from 'node:crypto';
import { resolveSdk } from '../server/cli-args.js';
import { print, style, UnexpectedOutcome } from './output.js';
import { httpTracker, startSheets, stdioTracker, type TourSecrets } from './servers.js';
import { runSteps, type TourFiles } from './steps.js';

/** The compiled programs and files the tour starts or reads, located by the entry point. */
export interface TourProgramFiles extends TourFiles {
  /** The compiled stdio trackers (`dist/stdio.js`, `dist/stdio-v1.js`), spawned with `--stdio`. */
  readonly stdio: URL;
  readonly stdioV1: URL;
}

/** Runs the tour; resolves to the exit code: 0 when every step behaved as described, 1 when one did not, 2 on bad arguments. */
export async function runTour(argv: readonly string[], files: TourProgramFiles): Promise<number> {
  // `node dist/tour.js | head` closes the pipe early; that is the reader's choice, not a failure.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  let sdk: 'v1' | 'v2';
  try {
    sdk = resolveSdk(argv);
  } catch (error) {
    console.error(`tour: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  // Secrets made for this tour on purpose: it keeps nothing across runs, so the servers need not warn about them.
  const secrets: TourSecrets = {
    TRACKER_SESSION_SECRET: randomBytes(32).toString('base64url'),
    TRACKER_REFS_SECRET: randomBytes(32).toString('base64url'),
  };
  const tracker = argv.includes('--stdio')
    ? stdioTracker(sdk, secrets, sdk === 'v1' ? files.stdioV1 : files.stdio)
    : await httpTracker(sdk, secrets);
  const { running } = tracker;
  let sheets: Awaited<ReturnType<typeof startSheets>> | undefined;
  try {
    sheets = await startSheets(running);
    print(style.dim(`The sheets server (a second MCP server) listens at ${sheets.url.href}.`));
    const target = {
      target: tracker.target,
      era: sdk === 'v1' ? ('legacy' as const) : ('modern' as const),
      sdk,
      sheets: sheets.url,
      cardUrl: running?.cardUrl,
      as: running?.as,
    };
    await runSteps(target, tracker.composed, tracker.where, files);
  } catch (error) {
    if (!(error instanceof UnexpectedOutcome)) throw error;
    print();
    print(style.red(`UNEXPECTED: ${error.message}`));
    return 1;
  } finally {
    await sheets?.close();
    await running?.close();
  }
  print();
  print(style.green(style.bold('Tour complete: every step behaved as described.')));
  return 0;
}
