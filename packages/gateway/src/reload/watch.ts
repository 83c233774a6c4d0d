/**
 * Watching the files a gateway was loaded from (its config and the
 * manifests it names) and calling back once a burst of changes settles and
 * a file's content really differs. Folders are watched, not files: editors
 * and deploy tools replace a file by renaming a new one over it (a mounted
 * Kubernetes ConfigMap swaps a symlink beside it), which a watch on the file
 * itself would miss; so any change in a watched folder leads to the
 * watched files being read again and compared.
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** How long the files must stay unchanged before a reload: one save often writes several times. */
export const DEFAULT_DEBOUNCE_MS = 300;

export interface FileWatch {
  /** Watches these files from now on (a reload may name other manifests). */
  watch(files: readonly string[]): void;
  close(): void;
}

export interface FileWatchOptions {
  readonly debounceMs?: number | undefined;
  /** A folder that cannot be watched (removed, no permission): told once per folder. */
  readonly onError?: ((folder: string, error: unknown) => void) | undefined;
}

/** Calls `changed` once the watched files have stopped changing for `debounceMs`. */
export function watchFiles(changed: () => void, options: FileWatchOptions = {}): FileWatch {
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const watchers = new Map<string, FSWatcher>();
  // The digest of each watched file as last seen: a folder event that changed none of them is no change.
  let digests = new Map<string, Promise<string>>();
  let timer: NodeJS.Timeout | undefined;
  const compare = async () => {
    const before = digests;
    const now = new Map([...before.keys()].map((file) => [file, digestOf(file)]));
    digests = now;
    for (const [file, digest] of now) {
      if ((await digest) === (await before.get(file))) continue;
      changed();
      return;
    }
  };
  const touched = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void compare(), debounceMs);
    timer.unref();
  };
  const watchFolder = (folder: string) => {
    try {
      const watcher = watch(folder, { persistent: false }, touched);
      watcher.on('error', (error) => options.onError?.(folder, error));
      watchers.set(folder, watcher);
    } catch (error) {
      options.onError?.(folder, error);
    }
  };
  return {
    watch(files) {
      const absolute = files.map((file) => resolve(file));
      digests = new Map(absolute.map((file) => [file, digests.get(file) ?? digestOf(file)]));
      const folders = new Set(absolute.map((file) => dirname(file)));
      for (const [folder, watcher] of watchers) {
        if (folders.has(folder)) continue;
        watcher.close();
        watchers.delete(folder);
      }
      for (const folder of folders) if (!watchers.has(folder)) watchFolder(folder);
    },
    close() {
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** The SHA-256 of a file's content; a file that cannot be read has the digest `unreadable` (its reload names why). */
async function digestOf(file: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  } catch {
    return 'unreadable';
  }
}
