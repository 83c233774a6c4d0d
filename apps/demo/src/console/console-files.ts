/**
 * Serves the web console's built files (`dist/console`: the page, its style
 * and one browser bundle) beside the MCP endpoint. Only the files listed
 * here are served, so no request path ever reaches the file system; the
 * list is a Map, so a name like `constructor` or `__proto__` is just a name
 * that is not on it.
 */
import { createReadStream, existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { appFile } from '../server/app-dir.js';

export const CONSOLE_PATH = '/console/';

/** The browser bundle's source map: served only when asked for (`sourceMaps`), since it reveals the whole client source. */
export const SOURCE_MAP = 'app.js.map';

const FILES: ReadonlyMap<string, string> = new Map([
  ['', 'text/html; charset=utf-8'],
  ['index.html', 'text/html; charset=utf-8'],
  ['style.css', 'text/css; charset=utf-8'],
  ['app.js', 'text/javascript; charset=utf-8'],
  [SOURCE_MAP, 'application/json; charset=utf-8'],
]);

/**
 * Sent with every console answer: the page runs only its own script and
 * style, talks only to its own origin, embeds nothing and is never framed
 * (the dialog that approves destructive calls must not be clickjacked).
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Where the built console is, and whether its source map may be served. */
export interface ConsoleFiles {
  /** `undefined`: not built; every console path answers 404 saying how to build it. */
  readonly dir: string | undefined;
  /** Serve `app.js.map` (`TRACKER_CONSOLE_SOURCEMAP=1`). Default `false`: it answers 404 like any unknown file. */
  readonly sourceMaps?: boolean | undefined;
}

/** The built console, `dist/console/` of the app, whether the server runs compiled or from source (tests). */
export function defaultConsoleDir(): string | undefined {
  const dir = appFile('dist', 'console');
  return existsSync(join(dir, 'index.html')) ? `${dir}/` : undefined;
}

/** Whether `TRACKER_CONSOLE_SOURCEMAP` asks for the source map to be served (`1` or `true`). */
export function sourceMapsFrom(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env.TRACKER_CONSOLE_SOURCEMAP;
  return raw === '1' || raw === 'true';
}

function notFound(res: ServerResponse, text: string): void {
  res.writeHead(404, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-cache',
    ...CONSOLE_SECURITY_HEADERS,
  });
  res.end(text);
}

/**
 * Streams one file; headers are written only once it opened, so a file
 * missing from the build is a 404, and a read error later ends the
 * response instead of the process.
 */
function sendFile(path: string, type: string, res: ServerResponse): void {
  const stream = createReadStream(path);
  stream.once('error', () => {
    if (!res.headersSent) notFound(res, 'Not found');
  });
  stream.once('open', () => {
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', ...CONSOLE_SECURITY_HEADERS });
    pipeline(stream, res, () => {
      // Done, or the client went away, or the read failed: pipeline destroyed both sides, nothing more to do.
    });
  });
  res.once('close', () => {
    stream.destroy();
  });
}

/** Answers a console request; `false` when `pathname` is not one. */
export function serveConsole(pathname: string, files: ConsoleFiles, res: ServerResponse): boolean {
  if (pathname === '/console') {
    res.writeHead(308, { location: CONSOLE_PATH, ...CONSOLE_SECURITY_HEADERS });
    res.end();
    return true;
  }
  if (!pathname.startsWith(CONSOLE_PATH)) return false;
  const name = pathname.slice(CONSOLE_PATH.length);
  const type = name === SOURCE_MAP && files.sourceMaps !== true ? undefined : FILES.get(name);
  if (files.dir === undefined) notFound(res, 'The console is not built: run `pnpm --filter @ext/demo build`.');
  else if (type === undefined) notFound(res, 'Not found');
  else sendFile(`${files.dir}${name === '' ? 'index.html' : name}`, type, res);
  return true;
}
