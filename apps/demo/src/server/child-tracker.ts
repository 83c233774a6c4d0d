/**
 * The compiled HTTP tracker (`tracker-http`) in a child process of its own,
 * on a SQLite file, with the demo users' tokens fixed: a server that can be
 * killed outright (SIGKILL, no shutdown at all) and started again on the same
 * file and port, as a crash and a restart would. The tour's Tasks step and the
 * console's tests run it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createDemoTokens, type DemoTokens } from './users.js';

export interface ChildTrackerOptions {
  /** The compiled entry point, `dist/http.js`. */
  readonly entry: URL;
  /** The SQLite file every start of this tracker shares. */
  readonly database: string;
  /** 0 picks a free port; a restart passes the port the first start got. */
  readonly port?: number | undefined;
  /** Pause between exported rows, in ms (`TRACKER_EXPORT_PACE_MS`). */
  readonly exportPaceMs: number;
  readonly tokens: DemoTokens;
  /** `TRACKER_SESSION_SECRET` and `TRACKER_REFS_SECRET`, the same for every start. */
  readonly secrets: Readonly<Record<'TRACKER_SESSION_SECRET' | 'TRACKER_REFS_SECRET', string>>;
}

export interface ChildTracker {
  /** The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly url: URL;
  readonly pid: number;
  /** Kills the process with SIGKILL (nothing closes, nothing is flushed) and resolves once it is gone. */
  kill(): Promise<void>;
  /** Asks it to stop (SIGTERM) and resolves once it exited. */
  stop(): Promise<void>;
}

const READY = /MCP over Streamable HTTP at (\S+),/;
const START_TIMEOUT_MS = 30_000;

/** What the child is started with: the same environment every time, so a restart serves the same users. */
function childEnvironment(options: ChildTrackerOptions): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TRACKER_DB: options.database,
    TRACKER_EXPORT_PACE_MS: String(options.exportPaceMs),
    TRACKER_ALICE_TOKEN: options.tokens.alice,
    TRACKER_BOB_TOKEN: options.tokens.bob,
    REDIS_URL: '',
    PORT: '',
    TRACKER_REFS_PORT: '',
    ...options.secrets,
  };
}

/** Resolves to the endpoint the child announces on stderr once it listens; rejects if it exits or stalls first. */
function announcedUrl(child: ChildProcess): Promise<URL> {
  return new Promise((resolve, reject) => {
    let said = '';
    let settled = false;
    const settle = (outcome: URL | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      if (outcome instanceof URL) resolve(outcome);
      else {
        child.kill('SIGKILL');
        reject(outcome);
      }
    };
    const onExit = () => {
      settle(new Error(`the tracker exited before it listened:\n${said}`));
    };
    const timer = setTimeout(() => {
      settle(new Error(`the tracker did not start within ${String(START_TIMEOUT_MS)} ms:\n${said}`));
    }, START_TIMEOUT_MS);
    child.once('exit', onExit);
    // Its logs keep coming after it listens: they are read and dropped, so the pipe never fills.
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      if (settled) return;
      said += text;
      const found = READY.exec(said);
      if (found?.[1] !== undefined) settle(new URL(found[1]));
    });
  });
}

/** Starts the tracker as a child process; resolves once it listens. */
export async function startChildTracker(options: ChildTrackerOptions): Promise<ChildTracker> {
  const child = spawn(process.execPath, [fileURLToPath(options.entry), '--port', String(options.port ?? 0)], {
    env: childEnvironment(options),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const url = await announcedUrl(child);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, pid: child.pid ?? 0, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/** Options for a tracker of its own on `database`: new demo tokens and secrets, the same for every start. */
export function freshTrackerOptions(entry: URL, database: string, exportPaceMs: number): ChildTrackerOptions {
  return {
    entry,
    database,
    exportPaceMs,
    tokens: createDemoTokens(),
    secrets: {
      TRACKER_SESSION_SECRET: randomBytes(32).toString('base64url'),
      TRACKER_REFS_SECRET: randomBytes(32).toString('base64url'),
    },
  };
}

/** A child tracker that can be killed and started again on the same SQLite file and port. */
export interface RestartableTracker {
  readonly current: ChildTracker;
  /** Kills the running process with SIGKILL, starts a new one on the same file and port; resolves to the killed pid. */
  restart(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a tracker that {@link RestartableTracker.restart} kills and starts again, as a crash and a restart would. */
export async function startRestartableTracker(options: ChildTrackerOptions): Promise<RestartableTracker> {
  let current = await startChildTracker(options);
  return {
    get current() {
      return current;
    },
    async restart() {
      const killed = current;
      await killed.kill();
      current = await startChildTracker({ ...options, port: Number(killed.url.port) });
      return killed.pid;
    },
    stop: () => current.stop(),
  };
}
