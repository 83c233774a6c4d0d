/**
 * Serves the web console's built files (`dist/console`: the page, its style
 * and one browser bundle) beside the MCP endpoint. Only the files listed
 * here are served, so no request path ever reaches the file system.
 */
import { createReadStream, existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

export const CONSOLE_PATH = '/console/';

const FILES: Readonly<Record<string, string>> = {
  '': 'text/html; charset=utf-8',
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.js.map': 'application/json; charset=utf-8',
};

/** The built console: beside the compiled server, or under dist/ when running from source (tests). */
export function defaultConsoleDir(): string | undefined {
  for (const candidate of ['./console/', '../dist/console/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

/** Answers a console request; `false` when `pathname` is not one. */
export function serveConsole(pathname: string, dir: string | undefined, res: ServerResponse): boolean {
  if (pathname === '/console') {
    res.writeHead(308, { location: CONSOLE_PATH });
    res.end();
    return true;
  }
  if (!pathname.startsWith(CONSOLE_PATH)) return false;
  const name = pathname.slice(CONSOLE_PATH.length);
  const type = FILES[name];
  if (type === undefined || dir === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(dir === undefined ? 'The console is not built: run `pnpm --filter @ext/demo build`.' : 'Not found');
    return true;
  }
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
  createReadStream(`${dir}${name === '' ? 'index.html' : name}`).pipe(res);
  return true;
}
