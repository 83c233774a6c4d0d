/** `mcp-ext-gateway --help`, `-h` and `help`, and the hint a usage error gives. */
import { describe, expect, it } from 'vitest';
import { HELP, parseCliArgs } from './cli-args.js';

describe('parseCliArgs: help', () => {
  it('--help, -h and help ask for the help, alone or after any command and its options', () => {
    const asks = [
      ['--help'],
      ['-h'],
      ['help'],
      ['--config', 'g.yaml', '--help'],
      ['lock', '-h'],
      ['tools', 'accept', '--help'],
      ['tools', '-h'],
      ['approvals', '--help'],
      ['approvals', 'deny', 'request-1', '-h'],
    ];
    for (const argv of asks) expect(parseCliArgs(argv), argv.join(' ')).toEqual({ command: 'help' });
  });

  it('an option’s value is that value, even when it reads -h; help as a tool’s name is that tool', () => {
    expect(
      parseCliArgs(['approvals', 'deny', 'request-1', '--reason', '-h', '--url', 'http://127.0.0.1:8080']),
    ).toEqual({
      command: 'approvals',
      action: 'deny',
      id: 'request-1',
      url: 'http://127.0.0.1:8080',
      config: undefined,
      reason: '-h',
      state: undefined,
    });
    expect(parseCliArgs(['tools', 'accept', 'help', '-c', 'g.yaml'])).toEqual({
      command: 'tools accept',
      config: 'g.yaml',
      tool: 'help',
    });
  });

  it('the help names every command and every flag', () => {
    for (const command of ['lock', 'tools accept', 'approvals list', 'approvals approve', 'approvals deny'])
      expect(HELP).toContain(`mcp-ext-gateway ${command}`);
    for (const flag of ['--config', '-c', '--stdio', '--out', '-o', '--url', '--reason', '--state', '--help', '-h'])
      expect(HELP).toMatch(new RegExp(`(^|[\\s,(|\\[])${flag}\\b`, 'm'));
    expect(HELP).toContain('MCP_EXT_GATEWAY_TOKEN');
  });

  it('a usage error names the problem, shows the usage and points to --help', () => {
    const error = parseCliArgs(['--config', 'g.yaml', '--verbose']);
    expect(error).toContain('unknown argument: --verbose');
    expect(error).toContain('usage: mcp-ext-gateway --config');
    expect(error).toContain('mcp-ext-gateway --help');
  });
});
