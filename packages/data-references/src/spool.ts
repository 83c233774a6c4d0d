/** The spool directory: writers whose bytes become references once committed, and the sweep of orphaned files. */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { mediaTypeOption } from './option-checks.js';
import { currentBase, ORIGIN, type OriginState } from './origin-options.js';
import type { CreateReferenceOptions, SpoolWriter } from './origin-types.js';
import { expiryFor, load, newId, save } from './reference-store.js';
import { closed, ignoreMissing } from './streams.js';

function ensureSpool(state: OriginState): Promise<void> {
  state.spoolReady ??= mkdir(state.spoolDirectory, { recursive: true }).then(() => undefined);
  return state.spoolReady;
}

/** A writer into a new spool file (`<ref_id>.bin.part`), renamed and saved as a reference on commit. */
export async function spool(state: OriginState, create: CreateReferenceOptions): Promise<SpoolWriter> {
  currentBase(state);
  const mimeType = mediaTypeOption(ORIGIN, 'mimeType', create.mimeType);
  const expiresAtMs = expiryFor(state, create.ttlSeconds);
  await ensureSpool(state);
  const refId = newId('ref-');
  const path = join(state.spoolDirectory, `${refId}.bin`);
  const part = `${path}.part`;
  const writable = createWriteStream(part);
  return {
    writable,
    async commit(verified) {
      await rename(part, path);
      return save(state, {
        ref_id: refId,
        mime_type: mimeType,
        size_bytes: verified.sizeBytes,
        sha256: verified.sha256,
        expires_at_ms: expiresAtMs,
        principal: create.principal ?? 'anonymous',
        name: create.name ?? null,
        source: 'spool',
        path,
      });
    },
    async abort() {
      await closed(writable);
      await unlink(part).catch(ignoreMissing);
    },
  };
}

/** Deletes spooled files whose reference is gone; resolves to how many. */
export async function sweep(state: OriginState): Promise<number> {
  const names = (await readdir(state.spoolDirectory).catch(ignoreMissing)) ?? [];
  let removed = 0;
  for (const name of names) {
    const match = /^(ref-[A-Za-z0-9_-]+)\.bin$/.exec(name);
    if (match?.[1] === undefined) continue;
    if ((await load(state, match[1])) === undefined) {
      await unlink(join(state.spoolDirectory, name)).catch(ignoreMissing);
      removed += 1;
    }
  }
  return removed;
}
