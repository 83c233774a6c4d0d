/** The permissions suite: the checks of a server that advertises `io.github.mcp-ext/permissions`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import { firstText, sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { ERRORS_ID, expectMethodError, resultMeta } from './methods.js';

export const PERMISSIONS_ID = 'io.github.mcp-ext/permissions';
interface Scope {
  readonly name: string;
  readonly auto_grant?: unknown;
}

function declaredScopes(ctx: CheckContext): Scope[] {
  const scopes = ctx.settings.scopes;
  return Array.isArray(scopes)
    ? scopes.filter((scope): scope is Scope => isRecord(scope) && typeof scope.name === 'string')
    : [];
}

function requiredScopes(ctx: CheckContext, tool: ListedTool): string[] | undefined {
  const meta = tool._meta?.[ctx.id ?? ''];
  if (!isRecord(meta) || !Array.isArray(meta.required_scopes)) return undefined;
  return meta.required_scopes.filter((scope): scope is string => typeof scope === 'string');
}

function withErrors(ctx: CheckContext): { extensions: Record<string, Record<string, unknown>> } {
  return {
    extensions: {
      [ctx.id ?? PERMISSIONS_ID]: { version: '1.0' },
      ...(ERRORS_ID in ctx.server.extensions ? { [ERRORS_ID]: { version: '1.0' } } : {}),
    },
  };
}

/** `@ext/permissions` (SPEC: packages/permissions/SPEC.md). */
export const permissionsSuite: ExtensionSuite = {
  extension: 'permissions',
  ids: [PERMISSIONS_ID],
  spec: 'packages/permissions/SPEC.md',
  checks: [
    {
      id: 'permissions/settings',
      requirement: 'PERM-1',
      level: 'MUST',
      title: 'settings declare scopes (name, description, tools) and integer session lifetimes',
      run(ctx) {
        const scopes = ctx.settings.scopes;
        ensure(Array.isArray(scopes), `scopes is ${describe(scopes)}`);
        for (const scope of scopes) {
          ensure(
            isRecord(scope) &&
              typeof scope.name === 'string' &&
              typeof scope.description === 'string' &&
              Array.isArray(scope.tools),
            `bad ScopeDefinition ${describe(scope)}`,
          );
        }
        for (const field of ['session_ttl_seconds', 'max_session_seconds']) {
          ensure(Number.isSafeInteger(ctx.settings[field]), `${field} is ${describe(ctx.settings[field])}`);
        }
        const url = ctx.settings.elevation_url;
        if (url !== undefined)
          ensure(typeof url === 'string' && url.startsWith('https://'), `elevation_url is ${describe(url)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'permissions/tool-meta',
      requirement: 'PERM-2',
      level: 'MUST',
      title: 'every tool carries required_scopes, naming only declared scopes',
      run(ctx) {
        const declared = new Set(declaredScopes(ctx).map((scope) => scope.name));
        const problems: string[] = [];
        for (const tool of ctx.server.tools) {
          const required = requiredScopes(ctx, tool);
          if (required === undefined) problems.push(`${tool.name}: no required_scopes`);
          else
            for (const scope of required)
              if (!declared.has(scope)) problems.push(`${tool.name}: undeclared scope ${scope}`);
        }
        ensure(problems.length === 0, problems.join('; '));
        return Promise.resolve();
      },
    },
    {
      id: 'permissions/check',
      requirement: 'PERM-4',
      level: 'MUST',
      title: 'check answers a PermissionCheckResponse, and allowed: false with a reason for an unknown tool',
      async run(ctx) {
        const probe = await ctx.connect();
        const tool = ctx.server.tools[0];
        if (tool !== undefined) {
          const answer = await probe.request(`${ctx.id ?? ''}/check`, { tool: tool.name, scopes_held: [] });
          ctx.expectSeedShape(answer, 'permissions', 'PermissionCheckResponse', 'the check answer');
        }
        const unknown = await probe.request(`${ctx.id ?? ''}/check`, {
          tool: 'conformance_no_such_tool',
          scopes_held: [],
        });
        ensure(
          unknown.allowed === false && typeof unknown.reason === 'string' && unknown.reason !== '',
          `unknown tool answered ${describe(unknown)}`,
        );
      },
    },
    {
      id: 'permissions/check-malformed',
      requirement: 'PERM-5',
      level: 'MUST',
      title: 'malformed check params are refused with -32602 and a structured invalid_input naming the field',
      async run(ctx) {
        const probe = await ctx.connect();
        const data = await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? ''}/check`,
          { tool: 42, scopes_held: [] },
          { category: 'invalid_input', code: 'INVALID_INPUT' },
        );
        const details = isRecord(data.details) ? data.details : {};
        ensure(details.field === 'tool', `details.field is ${describe(details.field)}`);
      },
    },
    {
      id: 'permissions/negotiate',
      requirement: 'PERM-6',
      level: 'MUST',
      title: 'negotiate grants or denies every requested scope, and denies an undeclared one with a reason',
      async run(ctx) {
        const probe = await ctx.connect();
        const requested = [...declaredScopes(ctx).map((scope) => scope.name), 'conformance:undeclared'];
        const answer = await probe.request(`${ctx.id ?? ''}/negotiate`, { requested_scopes: requested });
        ctx.expectSeedShape(answer, 'permissions', 'ScopeNegotiationResponse', 'the negotiation answer');
        const granted = Array.isArray(answer.granted_scopes) ? answer.granted_scopes : [];
        const denied = Array.isArray(answer.denied_scopes) ? answer.denied_scopes.filter(isRecord) : [];
        for (const scope of requested) {
          ensure(
            granted.includes(scope) || denied.some((entry) => entry.scope === scope),
            `scope ${scope} is neither granted nor denied`,
          );
        }
        const undeclared = denied.find((entry) => entry.scope === 'conformance:undeclared');
        ensure(
          undeclared !== undefined && typeof undeclared.reason === 'string' && undeclared.reason !== '',
          'an undeclared scope must be denied with a reason',
        );
      },
    },
    {
      id: 'permissions/scope-insufficient',
      requirement: 'PERM-9',
      level: 'MUST',
      title: 'a call without its scopes fails with auth_required SCOPE_INSUFFICIENT and the missing scopes',
      async run(ctx) {
        const manual = new Set(
          declaredScopes(ctx)
            .filter((scope) => scope.auto_grant !== true)
            .map((scope) => scope.name),
        );
        const candidate = ctx.server.tools.find(
          (tool) =>
            (requiredScopes(ctx, tool) ?? []).some((scope) => manual.has(scope)) && sampleArguments(tool) !== undefined,
        );
        if (candidate === undefined) return ctx.skip('no tool needs a scope that is not granted automatically');
        const probe = await ctx.connect(withErrors(ctx));
        const result = await probe.callTool(candidate.name, sampleArguments(candidate) ?? {});
        if (result.isError !== true && ctx.credentialed)
          return ctx.skip(
            `${candidate.name} ran: the kit's credentials may grant ${(requiredScopes(ctx, candidate) ?? []).join(', ')}; run it with credentials that lack them to check this`,
          );
        ensure(result.isError === true, `${candidate.name} ran without its scopes: ${describe(result)}`);
        const structured = resultMeta(result, ERRORS_ID);
        if (structured === undefined) {
          ensure(firstText(result) !== '', 'the refusal has no readable text');
          return;
        }
        ensure(
          structured.category === 'auth_required' && structured.code === 'SCOPE_INSUFFICIENT',
          `structured error is ${describe(structured)}`,
        );
        ensure(structured.user_actionable === true, 'user_actionable must be true');
        const details = isRecord(structured.details) ? structured.details : {};
        ensure(
          Array.isArray(details.missing_scopes) && details.missing_scopes.length > 0,
          `details.missing_scopes is ${describe(details.missing_scopes)}`,
        );
      },
    },
    {
      id: 'permissions/malformed-session-token',
      requirement: 'PERM-3',
      level: 'MUST',
      title: 'a session_token that is not a string is refused as invalid_input naming the field',
      async run(ctx) {
        const candidate = ctx.server.tools.find((tool) => sampleArguments(tool) !== undefined);
        if (candidate === undefined) return ctx.skip('no tool whose arguments the kit can build');
        const probe = await ctx.connect(withErrors(ctx));
        const result = await probe.callTool(candidate.name, sampleArguments(candidate) ?? {}, {
          [ctx.id ?? '']: { session_token: 42 },
        });
        ensure(result.isError === true, `a malformed session_token was accepted: ${describe(result)}`);
        const structured = resultMeta(result, ERRORS_ID);
        if (structured !== undefined) {
          const details = isRecord(structured.details) ? structured.details : {};
          ensure(
            structured.category === 'invalid_input' && details.field === 'session_token',
            `structured error is ${describe(structured)}`,
          );
        }
      },
    },
  ],
};
