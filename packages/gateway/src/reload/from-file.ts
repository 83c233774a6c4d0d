/**
 * Reloading a served gateway from its config file: on SIGHUP and when the
 * file or a manifest it names changes. The file is loaded and checked in
 * full before the gateway sees it; a config that fails is logged, with its
 * field, and the one in force stays (GW-49).
 */
import type { Logger } from '@ext/core';
import { loadConfig } from '../config/load.js';
import type { Gateway } from '../gateway.js';
import type { ReloadPlan } from './plan.js';
import { watchFiles, type FileWatchOptions } from './watch.js';

function describe(plan: ReloadPlan): string {
  const parts = [
    ['added', plan.added],
    ['removed', plan.removed],
    ['reconnected', plan.changed],
  ] as const;
  const said = parts.filter(([, names]) => names.length > 0).map(([verb, names]) => `${verb} ${names.join(', ')}`);
  return said.length === 0 ? '' : `; upstreams ${said.join('; ')}`;
}

/** Where reloads are told: each one once, taken up (`info`) or refused (`warn`). */
export type ReloadLogger = Logger & { info(message: string): void };

/** Loads `path` and hands it to the gateway; returns the files it names (config and manifests), or `undefined` when the running config stays. */
export async function reloadFromFile(
  gateway: Pick<Gateway, 'reload'>,
  path: string,
  logger: ReloadLogger,
): Promise<readonly string[] | undefined> {
  try {
    const { config, manifests } = await loadConfig(path);
    const outcome = await gateway.reload(config, manifests);
    logger.info(`reloaded ${path}: policy ${outcome.version}${describe(outcome.plan)}`);
    return [path, ...(config.manifests ?? [])];
  } catch (error) {
    logger.warn(`kept the running config: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

export interface ReloadTriggers {
  /** Stops watching and listening for SIGHUP. */
  close(): void;
}

export interface ReloadTriggerOptions extends FileWatchOptions {
  /** The files to watch at first: the config and the manifests it names. */
  readonly files: readonly string[];
  /** Whether file changes reload (default `true`); SIGHUP always does. */
  readonly watch?: boolean | undefined;
}

/** Reloads `gateway` from `path` on SIGHUP and, unless told not to, when the files it was loaded from change. */
export function reloadOnSignalAndChange(
  gateway: Pick<Gateway, 'reload'>,
  path: string,
  logger: ReloadLogger,
  options: ReloadTriggerOptions,
): ReloadTriggers {
  const reload = () => {
    void reloadFromFile(gateway, path, logger).then((files) => {
      if (files !== undefined) watcher?.watch(files);
    });
  };
  const watcher =
    options.watch === false
      ? undefined
      : watchFiles(reload, {
          ...options,
          onError:
            options.onError ??
            ((folder, error) => {
              logger.warn(`cannot watch ${folder} for config changes (SIGHUP still reloads)`, { error });
            }),
        });
  watcher?.watch(options.files);
  process.on('SIGHUP', reload);
  return {
    close() {
      process.off('SIGHUP', reload);
      watcher?.close();
    },
  };
}
