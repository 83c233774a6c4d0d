import { mkdtemp, rename, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchFiles, type FileWatch } from './watch.js';

const open: (FileWatch | string)[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) {
    if (typeof item === 'string') await rm(item, { recursive: true, force: true });
    else item.close();
  }
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-watch-'));
  open.push(dir);
  return dir;
}

/** Counts the callbacks of a watch on `files`, waiting for the first digests to be taken. */
async function counting(files: readonly string[]): Promise<{ count: () => number }> {
  let count = 0;
  const watch = watchFiles(() => count++, { debounceMs: 50 });
  open.push(watch);
  watch.watch(files);
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { count: () => count };
}

describe('watchFiles', () => {
  it('calls back once for a burst of writes to a watched file', async () => {
    const dir = await folder();
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1');
    const watched = await counting([file]);
    for (let i = 2; i < 6; i++) await writeFile(file, `a: ${String(i)}`);
    await expect.poll(watched.count, { timeout: 5_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(watched.count()).toBe(1);
  });

  it('sees a file renamed over the watched one, as editors and deploy tools save', async () => {
    const dir = await folder();
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1');
    const watched = await counting([file]);
    await writeFile(join(dir, '.gateway.yaml.tmp'), 'a: 2');
    await rename(join(dir, '.gateway.yaml.tmp'), file);
    await expect.poll(watched.count, { timeout: 5_000 }).toBe(1);
  });

  it('sees a ConfigMap-style symlink swap beside the file', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'v1'));
    await mkdir(join(dir, 'v2'));
    await writeFile(join(dir, 'v1', 'gateway.yaml'), 'a: 1');
    await writeFile(join(dir, 'v2', 'gateway.yaml'), 'a: 2');
    await symlink('v1', join(dir, '..data'));
    await symlink(join('..data', 'gateway.yaml'), join(dir, 'gateway.yaml'));
    const watched = await counting([join(dir, 'gateway.yaml')]);
    await symlink('v2', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await expect.poll(watched.count, { timeout: 5_000 }).toBe(1);
  });

  it('ignores other files in the folder and writes that leave the content as it was', async () => {
    const dir = await folder();
    const file = join(dir, 'gateway.yaml');
    await writeFile(file, 'a: 1');
    const watched = await counting([file]);
    await writeFile(join(dir, 'notes.txt'), 'unrelated');
    await writeFile(file, 'a: 1');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(watched.count()).toBe(0);
  });
});
