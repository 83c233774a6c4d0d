import { describe, expect, it } from 'vitest';
import { GatewayConfigError } from './config/errors.js';
import { parseConfig } from './config/load.js';
import { offeredTools } from './offered-tools.js';
import type { ExposedTool } from './upstream/index.js';

function tool(name: string, upstream = 'files', annotations?: Record<string, unknown>): ExposedTool {
  return {
    name,
    upstream,
    originalName: name.includes('__') ? (name.split('__')[1] ?? name) : name,
    description: `${name} as the upstream says`,
    inputSchema: { type: 'object' },
    annotations,
  };
}

const config = (policy: Record<string, unknown>) =>
  parseConfig(JSON.stringify({ upstreams: { files: { command: 'node' } }, policy }), { format: 'json' });

describe('offeredTools', () => {
  it('renames, describes and annotates a tool as its policy says; routing keeps the upstream’s name', () => {
    const [shaped] = offeredTools(
      config({
        read_file: {
          as: 'read',
          description: 'Reads one file under the project folder.',
          annotations: { title: 'Read a file', openWorldHint: false },
        },
      }),
      [],
      [tool('read_file', 'files', { readOnlyHint: true, openWorldHint: true })],
    );
    expect(shaped).toMatchObject({
      name: 'read',
      upstream: 'files',
      upstreamName: 'read_file',
      description: 'Reads one file under the project folder.',
      annotations: { readOnlyHint: true, openWorldHint: false, title: 'Read a file' },
    });
  });

  it('leaves a tool whose policy shapes nothing as the upstream has it', () => {
    const [plain] = offeredTools(config({}), [], [tool('read_file', 'files', { readOnlyHint: true })]);
    expect(plain).toMatchObject({
      name: 'read_file',
      description: 'read_file as the upstream says',
      annotations: { readOnlyHint: true },
    });
  });

  it('the defaults read the annotations the operator asserts: a tool declared destructive is confirmed', () => {
    const [gated, open] = offeredTools(
      config({
        write_file: { annotations: { destructiveHint: true } },
        delete_all: { annotations: { destructiveHint: false } },
      }),
      [],
      [tool('write_file'), tool('delete_all', 'files', { destructiveHint: true })],
    );
    expect(gated?.policy.confirm).toMatchObject({ risk: 'destructive' });
    expect(open?.policy.confirm).toBeUndefined();
  });

  it('entries still match the upstream’s names after a rename, not the new one', () => {
    const [shaped] = offeredTools(
      config({ read_file: { as: 'read' }, read: { hidden: true } }),
      [],
      [tool('read_file')],
    );
    expect(shaped?.name).toBe('read');
  });

  it.each([
    ['onto another tool’s name', { read_file: { as: 'write_file' } }, 'policy.read_file.as'],
    ['one `as` matching several tools', { '*_file': { as: 'file' } }, 'policy["*_file"].as'],
  ])('refuses two tools offered under one name: %s, naming the field', (_case, policy, field) => {
    const act = () => offeredTools(config(policy), [], [tool('read_file'), tool('write_file')]);
    expect(act).toThrow(GatewayConfigError);
    expect(act).toThrow(field);
  });
});
