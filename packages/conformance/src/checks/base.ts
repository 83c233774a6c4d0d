/** The base suite: identifier and settings syntax, reserved prefixes and `tools/list`, checked on every server. */
import { RESERVED_SECOND_LABELS, VENDOR_PREFIX, isRecord, parseSettingsVersion } from '@ext/core/kit';
import { parseExtensionId } from '@ext/core';
import { describe, ensure } from '../assert.js';
import type { ExtensionSuite } from '../types.js';

/**
 * Official extensions a server may advertise under the reserved prefix
 * (CORE-3 forbids everyone else from claiming it), and the draft
 * `io.modelcontextprotocol/tool-approval` (SEP-2848), an alias
 * packages/confirmation/SPEC.md allows beside `io.github.mcp-ext/tool-approval`,
 * and `io.modelcontextprotocol/events`, the Triggers and Events working
 * group's design sketch, which packages/events/SPEC.md (EVT-25) serves.
 */
export const OFFICIAL_EXTENSIONS: readonly string[] = [
  'io.modelcontextprotocol/ui',
  'io.modelcontextprotocol/tasks',
  'io.modelcontextprotocol/tool-approval',
  'io.modelcontextprotocol/events',
];

/** What every server is checked for, whatever it advertises. */
export const baseSuite: ExtensionSuite = {
  extension: 'base',
  ids: [],
  spec: 'packages/core/SPEC.md',
  checks: [
    {
      id: 'base/identifier-syntax',
      requirement: 'CORE-1',
      level: 'MUST',
      title: 'every advertised extension identifier has the SEP-2133 form {vendor-prefix}/{name}',
      run(ctx) {
        const bad = Object.keys(ctx.server.extensions)
          .map((id) => ({ id, check: parseExtensionId(id) }))
          .filter((entry) => !entry.check.ok);
        ensure(
          bad.length === 0,
          bad.map((entry) => `${describe(entry.id)}: ${entry.check.ok ? '' : entry.check.reason}`).join('; '),
        );
        return Promise.resolve();
      },
    },
    {
      id: 'base/settings-are-objects',
      requirement: 'CORE-5',
      level: 'MUST',
      title: 'every advertised settings value is a JSON object (ours also carry "version": "<major>.<minor>")',
      run(ctx) {
        const problems: string[] = [];
        for (const [id, settings] of Object.entries(ctx.server.extensions)) {
          if (!isRecord(settings)) {
            problems.push(`${id}: settings are ${describe(settings)}, not an object`);
            continue;
          }
          if (id.startsWith(`${VENDOR_PREFIX}/`) && parseSettingsVersion(settings.version) === undefined) {
            problems.push(`${id}: "version" is ${describe(settings.version)}, not "<major>.<minor>"`);
          }
        }
        ensure(problems.length === 0, problems.join('; '));
        return Promise.resolve();
      },
    },
    {
      id: 'base/no-reserved-prefix',
      requirement: 'CORE-3',
      level: 'MUST',
      title: `no identifier under a reserved prefix (second label ${RESERVED_SECOND_LABELS.join(' or ')}) except official extensions`,
      run(ctx) {
        const claimed = Object.keys(ctx.server.extensions).filter((id) => {
          const parsed = parseExtensionId(id);
          return parsed.ok && parsed.value.reserved && !OFFICIAL_EXTENSIONS.includes(id);
        });
        ensure(claimed.length === 0, `claims reserved identifier(s): ${claimed.join(', ')}`);
        return Promise.resolve();
      },
    },
    {
      id: 'base/tools-list',
      requirement: 'CORE-12',
      level: 'MUST',
      title: 'tools/list answers a client that advertises no extension, with MCP-shaped tools',
      run(ctx) {
        for (const tool of ctx.server.tools) {
          ensure(typeof tool.name === 'string' && tool.name !== '', `a tool has no name: ${describe(tool)}`);
          ensure(
            isRecord(tool.inputSchema) && tool.inputSchema.type === 'object',
            `${tool.name}: inputSchema.type must be "object"`,
          );
          if (tool._meta !== undefined) ensure(isRecord(tool._meta), `${tool.name}: _meta must be an object`);
        }
        return Promise.resolve();
      },
    },
  ],
};
