/**
 * A private `redis-server` for fault tests: each test owns one on a free
 * 127.0.0.1 port, and can stop it, start it again on the same port, and
 * freeze it (SIGSTOP: the socket stays open, nothing answers) and thaw it.
 * Tests of a store's outages must not touch a shared server that other
 * tests use. Speaks raw RESP, so the core needs no Redis client.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface RedisServerOptions {
  /** The executable. Default `redis-server` (from PATH). */
  readonly command?: string | undefined;
  /** How long a start may take before it fails, in ms. Default 10000. */
  readonly startTimeoutMs?: number | undefined;
}

export interface RedisServerProcess {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Whether the process runs now (frozen counts as running). */
  readonly running: boolean;
  /** Shuts the server down (SIGTERM) and waits until it exited; the port stays the same for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered. */
  freeze(): void;
  /** SIGCONT: it answers again, including what was sent while it was frozen. */
  thaw(): void;
  /** Stops it for good (idempotent). */
  close(): Promise<void>;
}

/** `undefined` when `redis-server` can be run, else why not (for a skip message). */
export function redisServerUnavailable(command = 'redis-server'): string | undefined {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) return `${command} is not on PATH (${probe.error.message})`;
  if (probe.status !== 0) return `${command} --version exited with ${String(probe.status)}`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port was assigned'));
      });
    });
  });
}

/** One PING over a fresh connection: `true` on `+PONG` within `timeoutMs`. */
function answersPing(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => {
      done(false);
    }, timeoutMs);
    socket.once('error', () => {
      done(false);
    });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      done(chunk.toString('latin1').startsWith('+PONG'));
    });
  });
}

// Children still running when the test process ends are killed with it.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function launch(command: string, port: number): ChildProcess {
  // No persistence: a restarted server starts empty, as after losing its data.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  const child = spawn(command, args, { stdio: 'ignore' });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function waitReady(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server on port ${port} exited at start`);
    if (await answersPing(port, 500)) return;
    await delay(25);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
}

/**
 * Starts a `redis-server` of the test's own on a free port, without
 * persistence, and resolves once it answers PING. Call `close()` when done
 * (an `afterEach`); a process left running dies with the test process.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  const command = options.command ?? 'redis-server';
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    if (child !== undefined) throw new Error('redis-server is already running');
    const launched = launch(command, port);
    child = launched;
    try {
      await waitReady(launched, port, timeoutMs);
    } catch (error) {
      child = undefined;
      throw error;
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (running === undefined) return;
    child = undefined;
    // A frozen process would never act on SIGTERM.
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    await exited(running);
  };
  const signal = (name: 'SIGSTOP' | 'SIGCONT'): void => {
    if (child === undefined) throw new Error('redis-server is not running');
    child.kill(name);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== undefined;
    },
    stop,
    start,
    freeze: () => {
      signal('SIGSTOP');
    },
    thaw: () => {
      signal('SIGCONT');
    },
    close: stop,
  };
}
