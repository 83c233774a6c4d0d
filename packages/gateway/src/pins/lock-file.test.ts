/** The lock file: written deterministically and atomically, read back strictly, and used as a pin source. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayConfigError } from '../config/errors.js';
import { definitionDigest, type ToolDefinition } from './definition.js';
import { LockFilePins } from './lock-file-pins.js';
import { lockFileText, parseLockFile, parseLockKey, readLockFile, writeLockFile } from './lock-file.js';

const ECHO: ToolDefinition = {
  name: 'echo',
  title: 'Echo',
  description: 'Says the text back.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};
const READ: ToolDefinition = { name: 'fs/read', inputSchema: { type: 'object' } };

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-lock-'));
  dirs.push(dir);
  return dir;
}

/** The error `parseLockFile` throws for `text`. */
function faultOf(text: string): GatewayConfigError {
  try {
    parseLockFile(text, 'gateway.lock.json');
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the lock file to be refused');
}

const valid = (): { version: number; tools: Record<string, Record<string, unknown>> } =>
  JSON.parse(lockFileText({ 'api/echo': ECHO })) as { version: number; tools: Record<string, Record<string, unknown>> };

describe('the lock file text', () => {
  it('round-trips: what is written reads back with each digest', () => {
    const read = parseLockFile(lockFileText({ 'api/echo': ECHO, 'files/fs/read': READ }));
    expect(read).toEqual({
      version: 1,
      tools: {
        'api/echo': { digest: definitionDigest(ECHO), definition: ECHO },
        'files/fs/read': { digest: definitionDigest(READ), definition: READ },
      },
    });
  });

  it('is deterministic: sorted at every level, indented, ending in a newline, whatever the input order', () => {
    const text = lockFileText({ 'files/fs/read': READ, 'api/echo': ECHO });
    const reordered = {
      ...ECHO,
      inputSchema: { required: ['text'], properties: { text: { type: 'string' } }, type: 'object' },
    };
    expect(lockFileText({ 'api/echo': reordered, 'files/fs/read': READ })).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.indexOf('"api/echo"')).toBeLessThan(text.indexOf('"files/fs/read"'));
    expect(text.indexOf('"properties"')).toBeLessThan(text.indexOf('"required"'));
    expect(text).toContain('\n  "tools": {\n    "api/echo": {\n      "definition": {');
  });

  it('leaves out what is not pinned (`_meta`)', () => {
    const text = lockFileText({ 'api/echo': { ...ECHO, _meta: { build: 7 } } as ToolDefinition });
    expect(text).not.toContain('_meta');
  });

  it.each<[string, (lock: ReturnType<typeof valid>) => unknown, string, string]>([
    ['a version it does not read', (lock) => ({ ...lock, version: 2 }), 'version', 'must be 1, got 2'],
    ['a field it does not know', (lock) => ({ ...lock, signed: true }), 'signed', 'is not a known field'],
    [
      'a missing digest',
      (lock) => ({ tools: { 'api/echo': { definition: lock.tools['api/echo']?.definition } }, version: 1 }),
      'tools["api/echo"].digest',
      'is required',
    ],
    [
      'a digest that is not sha256',
      (lock) => ({ ...lock, tools: { 'api/echo': { ...lock.tools['api/echo'], digest: 'md5:abc' } } }),
      'tools["api/echo"].digest',
      'must be',
    ],
    [
      'a definition edited by hand',
      (lock) => ({
        ...lock,
        tools: { 'api/echo': { ...lock.tools['api/echo'], definition: { ...ECHO, description: 'Edited.' } } },
      }),
      'tools["api/echo"].digest',
      'does not match the definition',
    ],
    [
      'a key without its upstream',
      (lock) => ({ ...lock, tools: { echo: lock.tools['api/echo'] } }),
      'tools.echo',
      'is not a key of the form `<upstream>/<tool>`',
    ],
    [
      'a definition of another tool than its key names',
      (lock) => ({ ...lock, tools: { 'api/other': lock.tools['api/echo'] } }),
      'tools["api/other"].definition.name',
      'must be "other"',
    ],
    [
      'unpinned fields in a definition',
      (lock) => ({
        ...lock,
        tools: { 'api/echo': { ...lock.tools['api/echo'], definition: { ...ECHO, _meta: {} } } },
      }),
      'tools["api/echo"].definition._meta',
      'is not a known field',
    ],
  ])('is refused with %s, naming the field and its line', (_what, edit, field, problem) => {
    const text = JSON.stringify(edit(valid()), null, 2);
    const error = faultOf(text);
    expect(error.field).toBe(field);
    expect(error.source).toBe('gateway.lock.json');
    expect(error.message).toContain(problem);
    expect(error.line).toBeGreaterThanOrEqual(1);
  });

  it('is refused when it is not JSON, with the line', () => {
    const error = faultOf('{\n  "version": 1,\n  "tools": {,}\n}');
    expect(error.message).toContain('is not valid JSON');
    expect(error.line).toBe(3);
  });

  it('keys split at the first slash: upstream names have none, tool names may', () => {
    expect(parseLockKey('files/fs/read')).toEqual({ upstream: 'files', tool: 'fs/read' });
    expect(parseLockKey('echo')).toBeUndefined();
    expect(parseLockKey('a__b/echo')).toBeUndefined();
    expect(parseLockKey('api/')).toBeUndefined();
  });
});

describe('readLockFile and writeLockFile', () => {
  it('write atomically (no file left beside it) and read back; a second write of the same tools is the same bytes', async () => {
    const dir = await tempDir();
    const path = join(dir, 'gateway.lock.json');
    await writeLockFile(path, { 'api/echo': ECHO });
    const first = await readFile(path, 'utf8');
    await writeLockFile(path, { 'api/echo': ECHO });
    expect(await readFile(path, 'utf8')).toBe(first);
    expect(await readdir(dir)).toEqual(['gateway.lock.json']);
    expect((await readLockFile(path)).tools['api/echo']?.definition).toEqual(ECHO);
  });

  it('a missing file is an error naming it', async () => {
    const path = join(await tempDir(), 'missing.lock.json');
    await expect(readLockFile(path)).rejects.toThrow(`${path}: the document cannot be read (ENOENT)`);
  });
});

describe('LockFilePins', () => {
  it('serves the file’s pins, reviewed; accept rewrites the file from disk, keeping other entries', async () => {
    const path = join(await tempDir(), 'gateway.lock.json');
    await writeLockFile(path, { 'api/echo': ECHO });
    const pins = await LockFilePins.open(path);
    expect(pins.reviewed).toBe(true);
    expect(await pins.pinned('api', 'echo')).toEqual({ digest: definitionDigest(ECHO), definition: ECHO });
    expect(await pins.pinned('api', 'other')).toBeUndefined();
    expect(await pins.pinned('api', 'constructor')).toBeUndefined();

    // Someone adds a tool to the file meanwhile: accepting another keeps it.
    await writeLockFile(path, { 'api/echo': ECHO, 'files/fs/read': READ });
    const changed = { ...ECHO, description: 'Says it twice.' };
    const pin = await pins.accept('api', 'echo', changed);
    expect(pin).toEqual({ digest: definitionDigest(changed), definition: changed });
    expect(await pins.pinned('api', 'echo')).toEqual(pin);
    const onDisk = await readLockFile(path);
    expect(Object.keys(onDisk.tools)).toEqual(['api/echo', 'files/fs/read']);
    expect(onDisk.tools['api/echo']?.digest).toBe(definitionDigest(changed));
  });

  it('pinIfAbsent keeps the pin a tool has and adds one it lacks', async () => {
    const path = join(await tempDir(), 'gateway.lock.json');
    await writeLockFile(path, { 'api/echo': ECHO });
    const pins = await LockFilePins.open(path);
    expect((await pins.pinIfAbsent('api', 'echo', { ...ECHO, description: 'Other.' })).definition).toEqual(ECHO);
    expect((await pins.pinIfAbsent('files', 'fs/read', READ)).definition).toEqual(READ);
    expect(Object.keys((await readLockFile(path)).tools)).toEqual(['api/echo', 'files/fs/read']);
  });

  it('refuses to open a file that is not a lock file', async () => {
    const path = join(await tempDir(), 'gateway.lock.json');
    await writeFile(path, '{"version": 1}');
    await expect(LockFilePins.open(path)).rejects.toThrow('tools is required');
  });
});
