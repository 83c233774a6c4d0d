/**
 * The page's script and style sheet, served from string constants so a
 * bundler ships them with the code. Their addresses carry a digest of
 * their content: one with the current digest is cached for good.
 */
import { createHash } from 'node:crypto';
import { PAGE_CSS } from './assets/page-css.js';
import { PAGE_JS } from './assets/page-js.js';

interface Asset {
  readonly name: string;
  readonly type: string;
  readonly content: string;
  readonly digest: string;
}

/** The assets, by their path under `{base}/assets/`. */
export interface PageAssets {
  readonly paths: { readonly script: string; readonly style: string };
  /** The asset `name` (`page.js`, `page.css`), or `undefined` when there is none by that name. */
  serve(name: string, version: string | null): Response | undefined;
}

function asset(name: string, type: string, content: string): Asset {
  return { name, type, content, digest: createHash('sha256').update(content).digest('base64url').slice(0, 16) };
}

/** The page's assets under `basePath`. */
export function pageAssets(basePath: string): PageAssets {
  const script = asset('page.js', 'text/javascript; charset=utf-8', PAGE_JS);
  const style = asset('page.css', 'text/css; charset=utf-8', PAGE_CSS);
  const path = (item: Asset) => `${basePath}/assets/${item.name}?v=${item.digest}`;
  return {
    paths: { script: path(script), style: path(style) },
    serve(name, version) {
      const item = [script, style].find((candidate) => candidate.name === name);
      if (item === undefined) return undefined;
      const cache = version === item.digest ? 'public, max-age=31536000, immutable' : 'no-cache';
      return new Response(item.content, {
        headers: {
          'content-type': item.type,
          'cache-control': cache,
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'same-origin',
        },
      });
    },
  };
}
