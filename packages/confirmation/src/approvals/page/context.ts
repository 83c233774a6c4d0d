/** What every route of the page is given: the checked options, the sign-ins, the assets' addresses. */
import type { PageConfig } from './options.js';
import type { SessionStore } from './sessions.js';

export interface PageContext {
  readonly config: PageConfig;
  readonly sessions: SessionStore;
  /** Paths of the script and style sheet, with a digest of their content so a browser never keeps an old one. */
  readonly assetPaths: { readonly script: string; readonly style: string };
}
