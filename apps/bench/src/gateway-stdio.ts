/**
 * The gateway benchmark's stdio upstream and the bridge most people put in
 * front of one: `@modelcontextprotocol/server-everything` (SDK v1, the
 * 2025-11-25 era, spoken to over stdio) and `mcp-proxy`, which starts it
 * and serves it over Streamable HTTP. Where their entry files are, and
 * `mcp-proxy` started in a process of its own on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { StdioCommand } from './gateway-setup.js';

const require = createRequire(import.meta.url);

/** How long a bridge may take to listen (it starts its upstream first), unless told otherwise. */
const START_DEADLINE_MS = 60_000;
const POLL_MS = 50;
/** The last characters of a bridge's output kept, to tell why it did not start. */
const OUTPUT_TAIL_CHARS = 4000;

/** The file an npm package's bin runs (from its package.json, not via a shell). */
export function binOf(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  if (bin === undefined) throw new Error(`${packageName} has no bin`);
  return join(dirname(manifestPath), bin);
}

/** The stdio upstream, as a gateway's config or a bridge starts it: this Node, the server's bin, `stdio`. */
export function everythingCommand(): StdioCommand {
  return { command: process.execPath, args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] };
}

/** A port on 127.0.0.1 that was free a moment ago (a bridge that takes no port 0 is handed one). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** A server in a process of its own that is not one of ours: its URL, and how to end it. */
export interface ForeignServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Ends `child` (SIGTERM, SIGKILL after 10 s) and waits for it to exit. */
export async function endProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The end of what `child` writes on stdout and stderr, kept as it comes. */
function outputTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail.trim();
}

/** Where a started process runs, and how long it may take to listen. */
export interface ListenOptions {
  readonly cwd?: string | undefined;
  readonly deadlineMs?: number | undefined;
}

/**
 * Starts `command` and waits until something accepts connections on `port`
 * of 127.0.0.1; throws with the end of its output if it exits first or
 * takes longer than its deadline (a minute unless told otherwise).
 */
export async function startListening(
  what: string,
  command: string,
  args: readonly string[],
  port: number,
  env: NodeJS.ProcessEnv = process.env,
  options: ListenOptions = {},
): Promise<{ readonly child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: options.cwd });
  const tail = outputTail(child);
  const stop = (): Promise<void> => endProcess(child);
  const deadlineMs = options.deadlineMs ?? START_DEADLINE_MS;
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited before it listened: ${tail()}`);
    if (await accepts(port)) return { child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${what} did not listen within ${String(deadlineMs / 1000)} s: ${tail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * `mcp-proxy` in front of the stdio upstream: its Streamable HTTP endpoint
 * only (no SSE), on 127.0.0.1, its defaults otherwise (the upstream spoken
 * to with the 2025 handshake, every caller's calls on its one connection).
 */
export async function startMcpProxy(): Promise<ForeignServer> {
  const port = await freePort();
  const upstream = everythingCommand();
  const args = [
    binOf('mcp-proxy'),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--server',
    'stream',
    '--',
    upstream.command,
    ...upstream.args,
  ];
  const started = await startListening('mcp-proxy', process.execPath, args, port);
  return { url: `http://127.0.0.1:${String(port)}/mcp`, stop: () => started.stop() };
}
