/**
 * Loading the gateway's config: `parseConfig` turns YAML or JSON text into a
 * checked `GatewayConfig` (pure); `loadConfig` reads a file, resolves its
 * relative paths against the file's folder and loads the manifests it names.
 * Every failure is a `GatewayConfigError` naming the field.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { firstViolation, lazyValidator } from '@ext/core/kit';
import { manifestPolicy, type ManifestPolicy } from '../policy/manifest.js';
import { semanticFault } from './checks.js';
import { readDocument, type ConfigFormat, type ParsedDocument } from './document.js';
import { configError, GatewayConfigError, type ConfigFault, type ErrorPlace } from './errors.js';
import { explain } from './explain.js';
import { GatewayConfigSchema, type GatewayConfig } from './schema.js';

export interface ParseConfigOptions {
  /** Default: `json` when `source` ends in `.json`, else `yaml` (which reads JSON too). */
  readonly format?: ConfigFormat | undefined;
  /** The file name messages start with. */
  readonly source?: string | undefined;
}

/** A config file, loaded: paths resolved, manifests read. */
export interface LoadedConfig {
  /** The absolute path of the config file. */
  readonly path: string;
  /** `manifests` and `store.sqlite` as absolute paths; `store` set (see `defaultStorePath`). */
  readonly config: GatewayConfig;
  /** The manifests `config.manifests` names, in order. */
  readonly manifests: readonly ManifestPolicy[];
}

const configValidator = lazyValidator(GatewayConfigSchema);

function formatOf(source: string | undefined): ConfigFormat {
  return source !== undefined && extname(source).toLowerCase() === '.json' ? 'json' : 'yaml';
}

function configFault(value: unknown): ConfigFault | undefined {
  const fault = explain(GatewayConfigSchema, value);
  if (fault !== undefined) return fault;
  // `explain` and the compiled validator agree (a test holds them to it); the validator has the last word.
  const validator = configValidator();
  if (validator.Check(value)) return semanticFault(value);
  const site = firstViolation(validator.Errors(value));
  const path = site.pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  return { path, problem: site.message };
}

function parseDocumentConfig(document: ParsedDocument, place: ErrorPlace): GatewayConfig {
  const fault = configFault(document.value);
  if (fault !== undefined) throw configError(fault, { ...place, line: document.lineOf(fault.path) });
  return document.value as GatewayConfig;
}

/**
 * Checks a config built in code (not read from a file) as `parseConfig`
 * checks a file's; `createGateway` runs it, so no config skips the checks.
 * Throws a `GatewayConfigError` naming the first field at fault.
 */
export function checkConfig(value: unknown): GatewayConfig {
  const fault = configFault(value);
  if (fault !== undefined) throw configError(fault, {});
  return value as GatewayConfig;
}

/**
 * `text` as a gateway config, checked against the schema and for what the
 * schema cannot say (intent patterns, compensation expressions). Throws a
 * `GatewayConfigError` naming the first field at fault (and its line).
 */
export function parseConfig(text: string, options: ParseConfigOptions = {}): GatewayConfig {
  const place = { source: options.source };
  const document = readDocument(text, options.format ?? formatOf(options.source), place);
  return parseDocumentConfig(document, place);
}

/** A stdio upstream starts in the config's folder, or in its `cwd` taken from there, so relative paths mean one thing. */
function withResolvedCwd(upstreams: GatewayConfig['upstreams'], folder: string): GatewayConfig['upstreams'] {
  return Object.fromEntries(
    Object.entries(upstreams).map(([name, upstream]) => [
      name,
      'command' in upstream ? { ...upstream, cwd: resolve(folder, upstream.cwd ?? '.') } : upstream,
    ]),
  );
}

/**
 * The SQLite file a config file that names no `store` keeps its state in:
 * beside it, named after it (`gateway.yaml` → `gateway.db`), so that two
 * configs in one folder never share tokens, quotas or idempotency records,
 * whatever folder the gateway is started from.
 */
export function defaultStorePath(configFile: string): string {
  const absolute = resolve(configFile);
  return join(dirname(absolute), `${basename(absolute, extname(absolute))}.db`);
}

function withResolvedPaths(config: GatewayConfig, file: string): GatewayConfig {
  const folder = dirname(file);
  const store = config.store;
  const sqlite = typeof store === 'object' && 'sqlite' in store ? store.sqlite : undefined;
  return {
    ...config,
    upstreams: withResolvedCwd(config.upstreams, folder),
    ...(store === undefined && { store: { sqlite: defaultStorePath(file) } }),
    ...(config.manifests !== undefined && { manifests: config.manifests.map((file) => resolve(folder, file)) }),
    // `:memory:` is SQLite's name for a database in memory, not a file.
    ...(sqlite !== undefined && sqlite !== ':memory:' && { store: { sqlite: resolve(folder, sqlite) } }),
    ...(config.pins?.lockFile !== undefined && {
      pins: { ...config.pins, lockFile: resolve(folder, config.pins.lockFile) },
    }),
  };
}

async function readText(file: string, fault: (reason: string) => GatewayConfigError): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw fault((error as NodeJS.ErrnoException).code ?? String(error));
  }
}

async function loadManifest(
  config: { readonly path: string; readonly document: ParsedDocument },
  manifest: { readonly file: string; readonly written: string; readonly index: number },
): Promise<ManifestPolicy> {
  const field = ['manifests', manifest.index];
  const text = await readText(manifest.file, (reason) =>
    configError(
      { path: field, problem: `names a file that cannot be read: ${manifest.written} (${reason})` },
      { source: config.path, line: config.document.lineOf(field) },
    ),
  );
  const document = readDocument(text, 'json', { source: manifest.written });
  return manifestPolicy(document.value, { source: manifest.written, lineOf: document.lineOf });
}

/**
 * Reads the config file at `path` (`.json` as JSON, `.yaml`/`.yml` as
 * YAML), resolves `manifests`, `store.sqlite` and each stdio upstream's
 * `cwd` (default: the config's folder) against its folder, names the
 * default store (`defaultStorePath`) when it names none, and loads the
 * manifests. Throws a `GatewayConfigError` for the file or a
 * manifest at fault (its `source` says which).
 */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  const extension = extname(path).toLowerCase();
  if (!['.json', '.yaml', '.yml'].includes(extension)) {
    throw new GatewayConfigError(`${path}: a config file must end in .yaml, .yml or .json`, {
      field: '',
      pointer: '',
      source: path,
    });
  }
  const absolute = resolve(path);
  const text = await readText(absolute, (reason) =>
    configError({ path: [], problem: `cannot be read (${reason})` }, { source: path }),
  );
  const document = readDocument(text, formatOf(path), { source: path });
  const written = parseDocumentConfig(document, { source: path });
  const config = withResolvedPaths(written, absolute);
  const manifests = await Promise.all(
    (config.manifests ?? []).map((file, index) =>
      loadManifest({ path, document }, { file, written: written.manifests?.[index] ?? file, index }),
    ),
  );
  return { path: absolute, config, manifests };
}
