/** The demo executables' command line and environment: the ports they listen on, the SDK line they serve, the export pace. */

export const DEFAULT_PORT = 3333;

/** A port number from configuration: an integer from 0 to 65535 (0 picks a free one); throws naming `what` otherwise. */
export function parsePort(raw: string, what: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`${what} must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

/** The port from `--port <n>` / `--port=<n>`, else `PORT`, else 3333; throws on a malformed value. */
export function resolvePort(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): number {
  let raw: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--port') raw = argv[index + 1] ?? '';
    else if (arg?.startsWith('--port=')) raw = arg.slice('--port='.length);
  }
  raw ??= env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  return parsePort(raw, 'port');
}

/** The reference origin's port from `TRACKER_REFS_PORT`, validated like `PORT`; `undefined` (a free port) when unset. */
export function resolveRefsPort(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.TRACKER_REFS_PORT;
  return raw === undefined || raw === '' ? undefined : parsePort(raw, 'TRACKER_REFS_PORT');
}

/** The SDK line from `--sdk v1|v2` / `--sdk=<line>`, default v2; throws on anything else. */
export function resolveSdk(argv: readonly string[]): 'v1' | 'v2' {
  let raw: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--sdk') raw = argv[index + 1] ?? '';
    else if (arg?.startsWith('--sdk=')) raw = arg.slice('--sdk='.length);
  }
  if (raw === undefined || raw === 'v2') return 'v2';
  if (raw === 'v1') return 'v1';
  throw new RangeError(`--sdk must be v1 or v2, got ${JSON.stringify(raw)}`);
}

/**
 * Pause between exported rows for the executables: `TRACKER_EXPORT_PACE_MS`,
 * default 60, so a person sees the progress bar move.
 */
export function exportPaceFrom(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.TRACKER_EXPORT_PACE_MS;
  const pace = raw === undefined || raw === '' ? 60 : Number(raw);
  if (!Number.isInteger(pace) || pace < 0 || pace > 10_000)
    throw new RangeError(`TRACKER_EXPORT_PACE_MS must be an integer from 0 to 10000, got ${JSON.stringify(raw)}`);
  return pace;
}
