/**
 * ContextForge in front of the gateway benchmark's stdio upstream, set up
 * the way its quick start does: its stdio bridge (`mcpgateway.translate`)
 * serves server-everything over Streamable HTTP, its gateway (`mcpgateway`)
 * registers the bridge as a federated gateway and exposes the bridge's
 * `echo` as a virtual server, and each caller sends a token signed with
 * its `create_jwt_token`. Its Python virtual environment is made once per
 * pinned release under this package's `node_modules/.cache` (`pnpm test`
 * never gets here: its tests hand the benchmark a reason instead). Nothing
 * here throws: what cannot be set up is the reason the row is missing.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bridgeArgs,
  CONTEXTFORGE_REQUIREMENT,
  CONTEXTFORGE_VERSION,
  contextForgeEnv,
  gatewayArgs,
  gatewayRegistration,
  isRecentEnough,
  parsePythonVersion,
  PYTHON_CANDIDATES,
  PYTHON_MINIMUM,
  PYTHON_VERSION_SCRIPT,
  serverIdOf,
  tokenArgs,
  toolIdOf,
  virtualServer,
  type ContextForgeSecrets,
} from './gateway-contextforge-setup.js';
import { CONTEXTFORGE_ECHO } from './gateway-setup.js';
import { everythingCommand, freePort, startListening } from './gateway-stdio.js';

/** Where the virtual environment of the pinned release is kept between runs. */
const VENV = fileURLToPath(new URL(`../node_modules/.cache/contextforge-${CONTEXTFORGE_VERSION}`, import.meta.url));
/** Written last by a complete install: a directory without it is a failed one, made again. */
const INSTALLED = join(VENV, 'bench-installed.json');

/** pip fetches and builds about a hundred packages; on a loaded machine that takes minutes. */
const INSTALL_DEADLINE_MS = 20 * 60_000;
/** Its gateway creates and migrates its database before it listens: a minute or more on a loaded machine. */
const START_DEADLINE_MS = 5 * 60_000;
/** The Python tools load its whole configuration first: seconds each. */
const TOOL_DEADLINE_MS = 2 * 60_000;
/** The end of a failed command's output kept in the reason. */
const REASON_TAIL_CHARS = 600;

/** ContextForge serving the stdio upstream: its virtual server, the token its callers send, and its bridge alone. */
export interface ContextForgeStarted {
  /** The virtual server's Streamable HTTP endpoint on the gateway. */
  readonly gatewayUrl: string;
  /** What every caller of the gateway sends: `Authorization: Bearer <token>`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The stdio bridge's own endpoint, which the gateway calls. */
  readonly bridgeUrl: string;
  /** Ends the gateway, then the bridge (and the upstream it started), and removes their state. */
  stop(): Promise<void>;
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > REASON_TAIL_CHARS ? `...${trimmed.slice(-REASON_TAIL_CHARS)}` : trimmed;
}

/** Runs `command` to its end; its stdout, or an error with the end of its output. */
function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      { env: options.env, cwd: options.cwd, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) resolve(stdout);
        else
          reject(
            new Error(
              `\`${command} ${args.slice(0, 3).join(' ')}\` failed: ${tail(`${stderr}\n${stdout}`) || error.message}`,
            ),
          );
      },
    );
  });
}

/** The first of {@link PYTHON_CANDIDATES} that runs and is recent enough; throws saying what each one was. */
async function findPython(): Promise<string> {
  const seen: string[] = [];
  for (const candidate of PYTHON_CANDIDATES) {
    try {
      const printed = await run(candidate, ['-c', PYTHON_VERSION_SCRIPT], { timeoutMs: TOOL_DEADLINE_MS });
      const version = parsePythonVersion(printed);
      if (version !== undefined && isRecentEnough(version)) return candidate;
      seen.push(`${candidate} is ${printed.trim()}`);
    } catch (error) {
      seen.push(`${candidate} does not run (${(error as Error).message.split('\n')[0] ?? ''})`);
    }
  }
  throw new Error(
    `it needs Python ${String(PYTHON_MINIMUM.major)}.${String(PYTHON_MINIMUM.minor)} or later, and none was found on PATH: ${seen.join('; ')}`,
  );
}

function installed(): boolean {
  if (!existsSync(INSTALLED)) return false;
  const record = JSON.parse(readFileSync(INSTALLED, 'utf8')) as { requirement?: unknown };
  return record.requirement === CONTEXTFORGE_REQUIREMENT && existsSync(join(VENV, 'bin', 'python'));
}

/** The virtual environment with the pinned release: made once, then found in the cache. */
async function ensureVenv(progress: (text: string) => void): Promise<void> {
  if (installed()) return;
  const python = await findPython();
  progress(`ContextForge: installing ${CONTEXTFORGE_REQUIREMENT} with ${python} into ${VENV} (once, a few minutes)`);
  rmSync(VENV, { recursive: true, force: true });
  await run(python, ['-m', 'venv', VENV], { timeoutMs: TOOL_DEADLINE_MS });
  await run(
    join(VENV, 'bin', 'python'),
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', CONTEXTFORGE_REQUIREMENT],
    { timeoutMs: INSTALL_DEADLINE_MS },
  );
  writeFileSync(INSTALLED, JSON.stringify({ requirement: CONTEXTFORGE_REQUIREMENT, python }));
}

/** Fresh strong values for this run only (it rejects short, low-entropy and default ones). */
function freshSecrets(): ContextForgeSecrets {
  const secret = (): string => randomBytes(48).toString('base64url');
  // Its password checks want three kinds of character: the suffix gives them.
  const password = (): string => `${randomBytes(18).toString('base64url')}-Aa1`;
  return {
    jwtSecret: secret(),
    encryptionSecret: secret(),
    adminPassword: password(),
    userPassword: password(),
    basicAuthPassword: password(),
  };
}

/** `method` on its admin API with the token; the JSON answer, or an error with the status and the body. */
async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path} answered ${String(answer.status)}: ${tail(text)}`);
  return JSON.parse(text) as unknown;
}

/** Registers the bridge, finds its `echo` and exposes it as a virtual server: the virtual server's id. */
async function exposeEcho(base: string, token: string, bridgeUrl: string): Promise<string> {
  await api(base, token, 'POST', '/gateways', gatewayRegistration(bridgeUrl));
  const toolId = toolIdOf(await api(base, token, 'GET', '/tools'), CONTEXTFORGE_ECHO.name);
  if (toolId === undefined) throw new Error(`the registered bridge has no tool \`${CONTEXTFORGE_ECHO.name}\``);
  const serverId = serverIdOf(await api(base, token, 'POST', '/servers', virtualServer([toolId])));
  if (serverId === undefined) throw new Error('POST /servers answered no id');
  return serverId;
}

async function startInVenv(dir: string, progress: (text: string) => void): Promise<ContextForgeStarted> {
  const secrets = freshSecrets();
  const env = contextForgeEnv(dir, secrets, process.env);
  const python = join(VENV, 'bin', 'python');
  const [bridgePort, gatewayPort] = [await freePort(), await freePort()];
  const listen = { cwd: dir, deadlineMs: START_DEADLINE_MS };
  progress('ContextForge: starting its stdio bridge and its gateway (its database is migrated first)');
  const starting = await Promise.allSettled([
    startListening('its stdio bridge', python, bridgeArgs(everythingCommand(), bridgePort), bridgePort, env, listen),
    startListening('its gateway', join(VENV, 'bin', 'mcpgateway'), gatewayArgs(gatewayPort), gatewayPort, env, listen),
  ]);
  const started = starting.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  // The gateway first: it holds sessions with the bridge.
  const stop = async (): Promise<void> => {
    for (const server of [...started].reverse()) await server.stop();
  };
  try {
    const failed = starting.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const token = (await run(python, tokenArgs(secrets.jwtSecret), { env, cwd: dir, timeoutMs: TOOL_DEADLINE_MS }))
      .trim()
      .split('\n')
      .at(-1);
    if (token === undefined || token === '') throw new Error('create_jwt_token printed no token');
    const base = `http://127.0.0.1:${String(gatewayPort)}`;
    const bridgeUrl = `http://127.0.0.1:${String(bridgePort)}/mcp`;
    const serverId = await exposeEcho(base, token, bridgeUrl);
    return {
      gatewayUrl: `${base}/servers/${serverId}/mcp`,
      headers: { authorization: `Bearer ${token}` },
      bridgeUrl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * ContextForge serving the stdio upstream, its virtual environment made
 * first if the cache has none; or why it could not be set up.
 */
export async function startContextForge(progress: (text: string) => void): Promise<ContextForgeStarted | string> {
  try {
    await ensureVenv(progress);
  } catch (error) {
    return `${CONTEXTFORGE_REQUIREMENT} could not be installed: ${(error as Error).message}`;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ext-bench-contextforge-'));
  const removeDir = (): void => {
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = await startInVenv(dir, progress);
    return {
      ...started,
      stop: async () => {
        await started.stop();
        removeDir();
      },
    };
  } catch (error) {
    removeDir();
    return `${CONTEXTFORGE_REQUIREMENT} did not start: ${(error as Error).message}`;
  }
}

/** The benchmark's ContextForge step: {@link startContextForge}, unless `BENCH_CONTEXTFORGE=0` turns it off. */
export function contextForgeStep(
  env: NodeJS.ProcessEnv,
  progress: (text: string) => void,
): () => Promise<ContextForgeStarted | string> {
  if (['0', 'false'].includes(env.BENCH_CONTEXTFORGE ?? ''))
    return () => Promise.resolve('it is turned off in this run (BENCH_CONTEXTFORGE=0)');
  return () => startContextForge(progress);
}
