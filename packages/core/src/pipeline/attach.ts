/** The `attach` hooks of a composition: startup work, run once per composition and store (CORE-29). */
import type { Logger } from '../telemetry/logger.js';
import type { Store } from '../store/store.js';
import type { ComposedServer, ServerAttachment } from '../contract/extension.js';

// Per composition, the stores its extensions were attached to: the
// 2026-07-28 era builds a server per request, and `attach` is startup work.
const attached = new WeakMap<ComposedServer, WeakSet<Store>>();

function report(logger: Logger, extension: string, error: unknown): void {
  logger.warn(`${extension}: attach failed; the server serves without it`, {
    error: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Runs every composed extension's `attach` hook once per composition and
 * store (core SPEC, CORE-29). Called by `extendServer` on both SDK lines.
 * Never throws: a hook's failure is logged, so one extension's startup work
 * cannot keep the server from serving.
 */
export function attachExtensions(
  composed: ComposedServer,
  store: Store,
  logger: Logger,
  runTool?: ServerAttachment['runTool'],
): void {
  let stores = attached.get(composed);
  if (stores === undefined) {
    stores = new WeakSet();
    attached.set(composed, stores);
  }
  if (stores.has(store)) return;
  stores.add(store);
  for (const half of composed.extensions) {
    if (half.attach === undefined) continue;
    try {
      const pending = half.attach({ store, logger, runTool });
      if (pending instanceof Promise) {
        pending.catch((error: unknown) => {
          report(logger, half.name, error);
        });
      }
    } catch (error) {
      report(logger, half.name, error);
    }
  }
}
