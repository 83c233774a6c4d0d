/** The command line of `mcp-ext-gateway`: which config, and whether to serve stdio instead of HTTP. */
export interface CliArgs {
  readonly config: string;
  readonly stdio: boolean;
}

export const USAGE = `usage: mcp-ext-gateway --config <gateway.yaml|gateway.json> [--stdio]

Serves the MCP servers the config lists, behind the @ext extension family:
over Streamable HTTP (the config's listen: port, host, path; default
http://127.0.0.1:8080/mcp), or over stdio with --stdio.`;

/** Reads the arguments; a string is the usage error to print. */
export function parseCliArgs(argv: readonly string[]): CliArgs | string {
  let config: string | undefined;
  let stdio = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--stdio') stdio = true;
    else if (argument === '--config' || argument === '-c') config = argv[++index];
    else if (argument?.startsWith('--config=') === true) config = argument.slice('--config='.length);
    else return `unknown argument: ${String(argument)}\n\n${USAGE}`;
  }
  if (config === undefined || config === '') return `--config is required\n\n${USAGE}`;
  return { config, stdio };
}
