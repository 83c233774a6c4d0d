/**
 * The command line of `mcp-ext-gateway`: serve (which config, and whether
 * over stdio instead of HTTP), `lock` (write the lock file of the
 * upstreams' tools), `tools accept <tool>` (accept a changed tool),
 * `approvals list | approve | deny` (against a running gateway) or `--help`.
 */

/** Serving the gateway: the default command. */
export interface ServeArgs {
  readonly command: 'serve';
  readonly config: string;
  readonly stdio: boolean;
}

/** `lock`: where the lock file goes, when not where the config says. */
export interface LockArgs {
  readonly command: 'lock';
  readonly config: string;
  readonly out: string | undefined;
}

/** `tools accept <tool>`: the tool by the name the gateway offers it under. */
export interface AcceptArgs {
  readonly command: 'tools accept';
  readonly config: string;
  readonly tool: string;
}

/** `approvals list | approve <id> | deny <id>` against a running gateway's approvals API. */
export interface ApprovalsArgs {
  readonly command: 'approvals';
  readonly action: 'list' | 'approve' | 'deny';
  /** The request to decide (`approve`, `deny`). */
  readonly id: string | undefined;
  /** The approvals URL (`--url`), or else the config it is read from (`--config`). */
  readonly url: string | undefined;
  readonly config: string | undefined;
  readonly reason: string | undefined;
  /** `list --state <state>`: only requests in that state. */
  readonly state: string | undefined;
}

/** `--help`, `-h` or `help`: print `HELP` on stdout. */
export interface HelpArgs {
  readonly command: 'help';
}

export type CliArgs = ServeArgs | LockArgs | AcceptArgs | ApprovalsArgs | HelpArgs;

/** Every command with its arguments: shown with a usage error, and first in the help. */
export const USAGE = `usage: mcp-ext-gateway --config <gateway.yaml|gateway.json> [--stdio]
       mcp-ext-gateway lock --config <gateway.yaml> [--out <gateway.lock.json>]
       mcp-ext-gateway tools accept <tool> --config <gateway.yaml>
       mcp-ext-gateway approvals list [--state pending] (--url <approvals url> | --config <gateway.yaml>)
       mcp-ext-gateway approvals approve <id> [--reason <why>] (--url <url> | --config <gateway.yaml>)
       mcp-ext-gateway approvals deny <id> [--reason <why>] (--url <url> | --config <gateway.yaml>)
       mcp-ext-gateway --help`;

/** What `--help` prints: the usage, what each command does, every flag and the exit status. */
export const HELP = `${USAGE}

Serves the MCP servers the config lists, behind the @ext extension family:
over Streamable HTTP (the config's listen: port, host, path; default
http://127.0.0.1:8080/mcp), or over stdio with --stdio. A config naming no
store keeps its state in a SQLite file beside it, named after it
(gateway.yaml: gateway.db).

lock          connects to every upstream and writes each tool's definition
              to a lock file (--out, else the config's pins.lockFile, else
              gateway.lock.json beside the config); commit it, and the
              gateway withholds a tool whose definition differs from it.
tools accept  connects to the upstreams and accepts the tool's current
              definition (named as the gateway offers it) into the config's
              lock file, or else into the pins in its store; prints what
              changed.
approvals     lists the requests held for an operator, or decides one, on a
              running gateway (its approvals API: --url, else the address
              the config's approvals.publicUrl or listen gives). The
              operator's API key or access token is read from the
              environment variable MCP_EXT_GATEWAY_TOKEN, never from the
              command line; it needs the approver scope.

Options:
  -c, --config <file>   the gateway's config, a .yaml, .yml or .json file (every
                        command; approvals reads the address from it)
      --stdio           serve one client over stdio instead of Streamable HTTP
  -o, --out <file>      lock: where to write the lock file
      --url <url>       approvals: the running gateway's approvals API
      --state <state>   approvals list: only the requests in that state (pending,
                        approved, denied, ...)
      --reason <why>    approvals approve, deny: recorded with the decision
  -h, --help            print this help on stdout and exit

Exit status: 0 done, 1 failed (the message says why), 2 usage error.`;

/** What the arguments after the command say. */
interface Options {
  config?: string | undefined;
  out?: string | undefined;
  url?: string | undefined;
  reason?: string | undefined;
  state?: string | undefined;
  stdio: boolean;
  readonly positionals: string[];
}

/** The value of option `names` (`--name value` or `--name=value`) at `argv[index]`, and how many arguments it takes. */
function optionAt(
  argv: readonly string[],
  index: number,
  names: readonly [string, ...string[]],
): { readonly value: string | undefined; readonly taken: number } | undefined {
  const argument = argv[index] ?? '';
  if (names.includes(argument)) return { value: argv[index + 1], taken: 2 };
  const prefix = `${names[0]}=`;
  return argument.startsWith(prefix) ? { value: argument.slice(prefix.length), taken: 1 } : undefined;
}

type ValueOption = 'config' | 'out' | 'url' | 'reason' | 'state';

const VALUE_OPTIONS: Readonly<Record<ValueOption, readonly [string, ...string[]]>> = {
  config: ['--config', '-c'],
  out: ['--out', '-o'],
  url: ['--url'],
  reason: ['--reason'],
  state: ['--state'],
};

/** Reads `argv`, taking `--config` always and the other options when the command has them. */
function readOptions(
  argv: readonly string[],
  accepts: { stdio?: boolean; values?: readonly ValueOption[] },
): Options | string {
  const options: Options = { stdio: false, positionals: [] };
  const names: readonly ValueOption[] = ['config', ...(accepts.values ?? [])];
  let index = 0;
  while (index < argv.length) {
    const argument = argv[index] ?? '';
    const found = names
      .map((name) => ({ name, at: optionAt(argv, index, VALUE_OPTIONS[name]) }))
      .find((candidate) => candidate.at !== undefined);
    if (found?.at !== undefined) options[found.name] = found.at.value;
    else if (accepts.stdio === true && argument === '--stdio') options.stdio = true;
    else if (argument !== '' && !argument.startsWith('-')) options.positionals.push(argument);
    else return `unknown argument: ${argument}`;
    index += found?.at?.taken ?? 1;
  }
  return options;
}

function usageError(problem: string): string {
  return `${problem}\n\n${USAGE}\n\nmcp-ext-gateway --help says what each command and flag does.`;
}

const HELP_FLAGS: readonly string[] = ['--help', '-h'];
const VALUE_FLAGS: ReadonlySet<string> = new Set(Object.values(VALUE_OPTIONS).flat());

/** `help` as the command, or `--help` / `-h` anywhere but as the value of an option (`--reason -h`). */
function asksForHelp(argv: readonly string[]): boolean {
  if (argv[0] === 'help') return true;
  return argv.some((argument, index) => HELP_FLAGS.includes(argument) && !VALUE_FLAGS.has(argv[index - 1] ?? ''));
}

/** The config option, or the usage error of its absence. */
function configOf(options: Options): string | undefined {
  return options.config === undefined || options.config === '' ? undefined : options.config;
}

function parseServe(argv: readonly string[]): CliArgs | string {
  const options = readOptions(argv, { stdio: true });
  if (typeof options === 'string') return usageError(options);
  const [stray] = options.positionals;
  if (stray !== undefined) return usageError(`unknown argument: ${stray}`);
  const config = configOf(options);
  if (config === undefined) return usageError('--config is required');
  return { command: 'serve', config, stdio: options.stdio };
}

function parseLock(argv: readonly string[]): CliArgs | string {
  const options = readOptions(argv, { values: ['out'] });
  if (typeof options === 'string') return usageError(options);
  const [stray] = options.positionals;
  if (stray !== undefined) return usageError(`unknown argument: ${stray}`);
  const config = configOf(options);
  if (config === undefined) return usageError('--config is required');
  if (options.out === '') return usageError('--out needs a file');
  return { command: 'lock', config, out: options.out };
}

function parseAccept(argv: readonly string[]): CliArgs | string {
  const options = readOptions(argv, {});
  if (typeof options === 'string') return usageError(options);
  const [tool, stray] = options.positionals;
  if (tool === undefined) return usageError('tools accept needs the name of a tool');
  if (stray !== undefined) return usageError(`unknown argument: ${stray}`);
  const config = configOf(options);
  if (config === undefined) return usageError('--config is required');
  return { command: 'tools accept', config, tool };
}

const APPROVAL_ACTIONS: readonly string[] = ['list', 'approve', 'deny'];

function parseApprovals(argv: readonly string[]): CliArgs | string {
  const [action, ...rest] = argv;
  if (action === undefined || !APPROVAL_ACTIONS.includes(action))
    return usageError(`unknown approvals command: ${action ?? '(none)'} (known: list, approve, deny)`);
  const options = readOptions(rest, { values: ['url', 'reason', 'state'] });
  if (typeof options === 'string') return usageError(options);
  const [id, stray] = options.positionals;
  if (action === 'list' ? id !== undefined : id === undefined)
    return usageError(action === 'list' ? `unknown argument: ${id ?? ''}` : `approvals ${action} needs a request id`);
  if (stray !== undefined) return usageError(`unknown argument: ${stray}`);
  if (options.url === undefined && configOf(options) === undefined) return usageError('--url or --config is required');
  return {
    command: 'approvals',
    action: action as ApprovalsArgs['action'],
    id,
    url: options.url,
    config: configOf(options),
    reason: options.reason,
    state: options.state,
  };
}

/** Reads the arguments; a string is the usage error to print. */
export function parseCliArgs(argv: readonly string[]): CliArgs | string {
  if (asksForHelp(argv)) return { command: 'help' };
  const [command, subcommand] = argv;
  if (command === 'lock') return parseLock(argv.slice(1));
  if (command === 'approvals') return parseApprovals(argv.slice(1));
  if (command !== 'tools') return parseServe(argv);
  if (subcommand === 'accept') return parseAccept(argv.slice(2));
  return usageError(`unknown tools command: ${subcommand ?? '(none)'} (known: accept)`);
}
