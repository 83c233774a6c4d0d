/**
 * Where a process spent its CPU, from the profile `node --cpu-prof` writes:
 * self time per function and per package (the module the function's file
 * belongs to), and time per package with Node's own frames counted to the
 * package that called them (the nearest caller outside Node: a socket
 * write the SDK client asked for is the client's, and so is the zod
 * validation it runs), largest first. Pure
 * functions of the profile's JSON.
 */

/** The parts of a `.cpuprofile` read here. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  /** The node each sample was taken in. */
  readonly samples: readonly number[];
  /** Microseconds from the previous sample to each one. */
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly selfMs: number;
  /** Share of all sampled time, idle included. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Sampled time outside `(idle)`: the process's own CPU. */
  readonly busyMs: number;
  readonly functions: readonly ProfileEntry[];
  readonly packages: readonly ProfileEntry[];
  /** Per package, Node's frames (and the native ones under them) counted to their nearest caller outside Node. */
  readonly callers: readonly ProfileEntry[];
}

/** Libraries every layer calls (schema validation): their time, too, goes to whoever called them. */
const SHARED_LIBRARIES: ReadonlySet<string> = new Set(['zod']);

/** Frames of Node itself, native ones and shared libraries': their time goes to whoever called them. */
function isNodeOwn(url: string): boolean {
  return url === '' || url.startsWith('node:') || SHARED_LIBRARIES.has(packageOf(url));
}

/** The package each node's time is counted to: its own, or its nearest caller's outside Node. */
function callerPackages(profile: CpuProfile): Map<number, string> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const owners = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = owners.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id);
    const parent = parents.get(id);
    let owner: string;
    if (frame === undefined) owner = '(unknown)';
    else if (!isNodeOwn(frame.url)) owner = packageOf(frame.url);
    else if (parent === undefined || byId.get(parent)?.functionName === '(root)')
      owner = frame.url === '' ? frame.functionName : packageOf(frame.url);
    else owner = ownerOf(parent);
    owners.set(id, owner);
    return owner;
  };
  for (const node of profile.nodes) ownerOf(node.id);
  return owners;
}

/** What a script URL belongs to: an npm package, a workspace package, Node itself, or the V8 pseudo-frames. */
export function packageOf(url: string): string {
  if (url === '') return '(native or V8)';
  if (url.startsWith('node:')) return 'node:internal';
  const store = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (store?.[1] !== undefined) return store[1];
  const installed = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (installed?.[1] !== undefined) return installed[1];
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (workspace?.[2] !== undefined) return `@ext/${workspace[2]}`;
  return url;
}

/** The file a URL names, without its directories. */
function fileOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

function ranked(totals: Map<string, number>, totalMs: number, top: number): ProfileEntry[] {
  return [...totals.entries()]
    .map(([name, selfMs]) => ({ name, selfMs, share: totalMs > 0 ? selfMs / totalMs : 0 }))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, top);
}

function add(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

/** The `top` functions and packages by self time in `profile`. */
export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  const callers = new Map<string, number>();
  const owners = callerPackages(profile);
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const frame = byId.get(id);
    if (frame === undefined) return;
    totalMs += ms;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    const where = frame.url === '' ? '' : ` ${fileOf(frame.url)}:${String(frame.lineNumber + 1)}`;
    add(functions, `${frame.functionName || '(anonymous)'}${where} [${packageOf(frame.url)}]`, ms);
    add(packages, frame.url === '' ? frame.functionName : packageOf(frame.url), ms);
    add(callers, owners.get(id) ?? '(unknown)', ms);
  });
  return {
    totalMs,
    busyMs: totalMs - idleMs,
    functions: ranked(functions, totalMs, top),
    packages: ranked(packages, totalMs, top),
    callers: ranked(callers, totalMs, top),
  };
}
