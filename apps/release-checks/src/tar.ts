// Listing the files of a gzipped tarball without unpacking it.
import { gunzipSync } from 'node:zlib';

/** One regular file in a tarball. */
export interface TarEntry {
  readonly path: string;
  readonly size: number;
  readonly content: Buffer;
}

const BLOCK = 512;

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
}

function octal(header: Buffer, offset: number, length: number): number {
  const text = field(header, offset, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error(`tar: bad octal field "${text}"`);
  return Number.parseInt(text, 8);
}

/** The `path` record of a pax extended header (`<len> path=<value>\n` records). */
function paxPath(body: Buffer): string | undefined {
  let rest = body.toString('utf8');
  while (rest.length > 0) {
    const space = rest.indexOf(' ');
    const length = Number.parseInt(rest.slice(0, space), 10);
    if (space === -1 || !Number.isSafeInteger(length) || length <= 0) return undefined;
    const record = rest.slice(space + 1, length - 1);
    if (record.startsWith('path=')) return record.slice('path='.length);
    rest = rest.slice(length);
  }
  return undefined;
}

/**
 * The regular files of a tar archive (ustar, with pax or GNU long names),
 * in order. Directories, links and metadata entries are skipped.
 */
export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = field(header, 345, 155);
    const name = field(header, 0, 100);
    const body = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    if (body.length !== size) throw new Error('tar: archive ends inside an entry');
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x' || type === 'L') {
      longName = type === 'x' ? paxPath(body) : field(body, 0, body.length);
      continue;
    }
    const path = longName ?? (prefix === '' ? name : `${prefix}/${name}`);
    longName = undefined;
    if (type === '0' || type === '\0' || type === '7') entries.push({ path, size, content: Buffer.from(body) });
  }
  return entries;
}

/** The regular files of a `.tgz` (the format `npm pack` and `pnpm pack` write). */
export function readTarball(gzipped: Buffer): TarEntry[] {
  return readTar(gunzipSync(gzipped));
}
