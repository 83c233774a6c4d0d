import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTar, readTarball } from './tar.js';

/** A ustar header block for `path` (split into prefix/name when long) of `size` bytes and `type`. */
function header(path: string, size: number, type: string): Buffer {
  const block = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(path) > 100) {
    const cut = path.lastIndexOf('/', 155);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  block.write('00000000000\0', 136);
  block.write('        ', 148);
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function padded(content: Buffer): Buffer {
  return Buffer.concat([content, Buffer.alloc((512 - (content.length % 512)) % 512)]);
}

function pax(path: string): Buffer {
  const record = (length: number): string => `${length} path=${path}\n`;
  let length = record(0).length;
  while (record(length).length !== length) length = record(length).length;
  return Buffer.from(record(length));
}

type Entry = { path: string; content: Buffer; long: 'ustar' | 'pax' | 'gnu' };

function archive(entries: readonly Entry[], directories: readonly string[] = []): Buffer {
  const blocks: Buffer[] = [];
  for (const dir of directories) blocks.push(header(dir, 0, '5'));
  for (const entry of entries) {
    if (entry.long === 'pax') {
      const body = pax(entry.path);
      blocks.push(header('PaxHeader', body.length, 'x'), padded(body));
      blocks.push(header('truncated-name', entry.content.length, '0'), padded(entry.content));
    } else if (entry.long === 'gnu') {
      const body = Buffer.from(`${entry.path}\0`);
      blocks.push(header('././@LongLink', body.length, 'L'), padded(body));
      blocks.push(header('truncated-name', entry.content.length, '0'), padded(entry.content));
    } else {
      blocks.push(header(entry.path, entry.content.length, '0'), padded(entry.content));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const segment = fc.stringMatching(/^[a-z0-9_-]{1,40}$/);
const entryArbitrary = fc.record({
  path: fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `package/${parts.join('/')}`),
  content: fc.uint8Array({ maxLength: 1500 }).map((bytes) => Buffer.from(bytes)),
  long: fc.constantFrom<Entry['long']>('ustar', 'pax', 'gnu'),
});

describe('readTar', () => {
  it('returns every regular file with its path, size and bytes, whatever the naming scheme', () => {
    fc.assert(
      fc.property(fc.array(entryArbitrary, { maxLength: 8 }), (entries) => {
        const read = readTar(archive(entries, ['package/']));
        expect(read.map((entry) => entry.path)).toEqual(entries.map((entry) => entry.path));
        expect(read.map((entry) => entry.size)).toEqual(entries.map((entry) => entry.content.length));
        read.forEach((entry, index) => {
          expect(entry.content.equals(entries[index]?.content ?? Buffer.alloc(0))).toBe(true);
        });
      }),
    );
  });

  it('reads gzipped tarballs', () => {
    const entries: Entry[] = [{ path: 'package/package.json', content: Buffer.from('{"name":"x"}'), long: 'ustar' }];
    expect(readTarball(gzipSync(archive(entries)))[0]?.content.toString()).toBe('{"name":"x"}');
  });

  it('refuses an archive cut inside an entry and a corrupt size field', () => {
    const whole = archive([{ path: 'package/a.txt', content: Buffer.alloc(2000, 1), long: 'ustar' }]);
    expect(() => readTar(whole.subarray(0, 1024))).toThrow(/ends inside an entry/);
    const corrupt = Buffer.from(whole);
    corrupt.write('99999999999\0', 124);
    expect(() => readTar(corrupt)).toThrow(/bad octal/);
  });
});
