/** `check_permissions` and `negotiate_permissions`: the methods served as tools, for clients that can only call tools. */
import { registerMethodTools } from '@ext/core/kit';
import { type ExtendedServer, type ToolInfo } from '@ext/core';
import * as z from 'zod';
import { PERMISSIONS_PACKAGE } from './schema.js';

/** The tool names of {@link registerPermissionTools}. */
export const PERMISSION_TOOL_NAMES = ['check_permissions', 'negotiate_permissions'] as const;

/**
 * Serves `<id>/check` and `<id>/negotiate` as the tools `check_permissions`
 * and `negotiate_permissions` too, for clients that can only call tools
 * (PERM-17). They run the methods' own handlers. A tools-only host cannot
 * attach a session token to later calls, so for it `negotiate_permissions`
 * says what would be granted; its grant is what the transport authenticated.
 */
export function registerPermissionTools(server: Pick<ExtendedServer, 'registerTool' | 'composed'>): ToolInfo[] {
  return registerMethodTools(server, PERMISSIONS_PACKAGE, [
    {
      verb: 'check',
      name: 'check_permissions',
      description:
        'Checks, without running it, whether a tool may be called with the scopes this caller holds, and which scopes are missing.',
      inputSchema: z.object({
        tool: z.string().describe('The tool to check.'),
        scopes_held: z.array(z.string()).default([]).describe('The scopes you believe you hold (informative only).'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      summary: (result) =>
        result.allowed === true
          ? 'Allowed.'
          : `Not allowed: ${typeof result.reason === 'string' ? result.reason : 'missing scopes'}`,
    },
    {
      verb: 'negotiate',
      name: 'negotiate_permissions',
      description: 'Asks for scopes; answers which are granted and which are denied, with reasons.',
      inputSchema: z.object({
        requested_scopes: z.array(z.string()).min(1).describe('The scopes to ask for.'),
        justification: z.string().max(1024).optional().describe('Why they are needed, for the person who decides.'),
      }),
      annotations: { readOnlyHint: false, openWorldHint: false },
      summary: (result) => {
        const granted = Array.isArray(result.granted_scopes) ? result.granted_scopes.join(', ') : '';
        return `Granted: ${granted === '' ? 'none' : granted}.`;
      },
    },
  ]);
}
