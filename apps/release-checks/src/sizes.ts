/** One published package's size, as the sizes section of BENCHMARKS.md shows it. */
export interface SizeRow {
  readonly name: string;
  readonly version: string;
  readonly files: number;
  /** Bytes of the `.tgz`. */
  readonly packedBytes: number;
  /** Bytes of the package's own files once installed. */
  readonly unpackedBytes: number;
  /** Bytes of the package plus every runtime dependency it pulls in (peers excluded, install scripts not run). */
  readonly withDependenciesBytes: number;
  /** Its runtime dependencies (not peers), by name. */
  readonly dependencies: readonly string[];
}

/** The footprint of the packed-consumer project. */
export interface ConsumerFootprint {
  /** What was installed, e.g. `@ext/core, @ext/errors, @modelcontextprotocol/server 2.4.0, ...`. */
  readonly installed: readonly string[];
  /** Bytes of the `@ext/*` packages with their own runtime dependencies. */
  readonly extBytes: number;
  /** Bytes of the whole `node_modules`, SDK and type checker included. */
  readonly totalBytes: number;
}

export const SIZES_SECTION = 'sizes';

/** `1536` -> `1.5 KiB`; binary units, one decimal from KiB up. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`formatBytes: ${String(bytes)} is not a byte count`);
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit] ?? ''}`;
}

/** The body of the sizes section (between its markers). */
export function renderSizes(rows: readonly SizeRow[], consumer: ConsumerFootprint, date: string): string {
  const lines = [
    '## Package sizes',
    '',
    'Written by `pnpm sizes` (the packed-consumer check of `apps/release-checks`,',
    'which `pnpm test` runs without writing here) from the tarballs `pnpm pack`',
    'produces, exactly what `npm publish` would',
    `upload. Last written ${date}. **packed** is the download, **unpacked** the`,
    "package's own files on disk, **with dependencies** adds every runtime",
    'dependency it pulls in (peers such as `@ext/core` and the SDKs excluded,',
    'install scripts not run).',
    '',
    '| package | version | files | packed | unpacked | with dependencies | runtime dependencies |',
    '|---|---|---:|---:|---:|---:|---|',
    ...rows.map(
      (row) =>
        `| \`${row.name}\` | ${row.version} | ${row.files} | ${formatBytes(row.packedBytes)} | ${formatBytes(row.unpackedBytes)} | ${formatBytes(row.withDependenciesBytes)} | ${row.dependencies.length === 0 ? 'none' : row.dependencies.map((name) => `\`${name}\``).join(', ')} |`,
    ),
    '',
    `A fresh project installing ${consumer.installed.map((name) => `\`${name}\``).join(', ')}`,
    `with plain npm: the \`@ext/*\` packages with their own dependencies take`,
    `${formatBytes(consumer.extBytes)} of its ${formatBytes(consumer.totalBytes)} \`node_modules\` (SDK, zod and the type checker included).`,
  ];
  return lines.join('\n');
}

function markers(name: string): { start: string; end: string } {
  if (!/^[\w-]+$/.test(name)) throw new RangeError(`section name "${name}" must be letters, digits, _ or -`);
  return { start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` };
}

/**
 * Puts `body` between `<!-- name:start -->` and `<!-- name:end -->` in
 * `document`, leaving everything outside the markers as it was. Appends the
 * section when the markers are absent; starts a document when it is empty.
 */
export function replaceMarkedSection(document: string, name: string, body: string, title = '# Benchmarks'): string {
  const { start, end } = markers(name);
  const section = `${start}\n${body.trimEnd()}\n${end}`;
  const from = document.indexOf(start);
  const to = from === -1 ? -1 : document.indexOf(end, from + start.length);
  if (from !== -1 && to !== -1) return document.slice(0, from) + section + document.slice(to + end.length);
  if (from !== -1) throw new Error(`${start} has no matching ${end}`);
  if (document.trim() === '') return `${title}\n\n${section}\n`;
  return `${document.trimEnd()}\n\n${section}\n`;
}
