/** The manifest suite: the checks of a server that advertises `io.github.mcp-ext/manifest`. */
import { canonicalHash, canonicalJson, isRecord } from '@ext/core/kit';
import { describe, ensure } from '../assert.js';
import type { CheckContext, ExtensionSuite, ListedTool } from '../types.js';
import { detailsOf, expectMethodError, withErrors } from './methods.js';

export const MANIFEST_ID = 'io.github.mcp-ext/manifest';
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;
const VENDOR = 'io.github.mcp-ext/';

/** MAN-7: the seed names an advertised extension of this project stands for. */
const SEED_NAMES: Readonly<Record<string, readonly string[]>> = {
  errors: ['structured_errors'],
  streaming: ['streaming', 'progress_notifications'],
  idempotency: ['idempotency'],
  transactions: ['transactions'],
  provenance: ['provenance'],
  'session-state': ['session_state'],
  intent: ['intent_hints'],
  confirmation: ['human_in_the_loop'],
  'data-references': ['data_references'],
  events: ['subscribe_notify'],
  discovery: ['server_recommendations'],
  multimodal: ['multimodal_signatures'],
};

interface Answer {
  readonly etag: string;
  readonly manifest: Record<string, unknown>;
  readonly tools: Record<string, unknown>[];
}

/** `get` without an etag: the answer must carry a manifest. */
async function fetchManifest(ctx: CheckContext): Promise<Answer> {
  const answer = await (await ctx.connect(withErrors(ctx, MANIFEST_ID))).request(`${ctx.id ?? MANIFEST_ID}/get`, {});
  ensure(typeof answer.etag === 'string' && answer.etag !== '', `etag is ${describe(answer.etag)}`);
  ensure(isRecord(answer.manifest), `get without an etag answered no manifest: ${describe(answer)}`);
  const tools = Array.isArray(answer.manifest.tools) ? answer.manifest.tools.filter(isRecord) : [];
  return { etag: answer.etag, manifest: answer.manifest, tools };
}

/** The family name of one of this project's identifiers (`errors-v2` -> `errors`), else `undefined`. */
function familyOf(id: string): string | undefined {
  if (!id.startsWith(VENDOR)) return undefined;
  return id.slice(VENDOR.length).replace(/-v\d+$/, '');
}

function metaOf(tool: ListedTool, extension: string): Record<string, unknown> | undefined {
  const meta = tool._meta?.[`${VENDOR}${extension}`];
  return isRecord(meta) ? meta : undefined;
}

/** `@ext/manifest` (SPEC: packages/manifest/SPEC.md). `get` has no effects. */
export const manifestSuite: ExtensionSuite = {
  extension: 'manifest',
  ids: [MANIFEST_ID],
  spec: 'packages/manifest/SPEC.md',
  checks: [
    {
      id: 'manifest/settings',
      requirement: 'MAN-1',
      level: 'MUST',
      title: 'settings carry an integer ttl_seconds >= 1',
      run(ctx) {
        const ttl = ctx.settings.ttl_seconds;
        ensure(Number.isSafeInteger(ttl) && (ttl as number) >= 1, `ttl_seconds is ${describe(ttl)}`);
        return Promise.resolve();
      },
    },
    {
      id: 'manifest/get',
      requirement: 'MAN-3',
      level: 'MUST',
      title:
        'get answers { etag, ttl_seconds, not_modified: false, manifest } with a manifest valid against the seed service-manifest (0.1.0)',
      async run(ctx) {
        const answer = await (
          await ctx.connect(withErrors(ctx, MANIFEST_ID))
        ).request(`${ctx.id ?? MANIFEST_ID}/get`, {});
        ensure(
          Number.isSafeInteger(answer.ttl_seconds) && (answer.ttl_seconds as number) >= 1,
          `ttl_seconds is ${describe(answer.ttl_seconds)}`,
        );
        ensure(
          answer.not_modified === false,
          `not_modified is ${describe(answer.not_modified)} for a client that holds no etag`,
        );
        ctx.expectSeedShape(answer.manifest, 'service-manifest', undefined, 'the manifest');
        ensure(
          isRecord(answer.manifest) && answer.manifest.manifest_version === '0.1.0',
          `manifest_version is ${describe(isRecord(answer.manifest) ? answer.manifest.manifest_version : undefined)}`,
        );
      },
    },
    {
      id: 'manifest/without-negotiation',
      requirement: 'MAN-2',
      level: 'MUST',
      title: 'get is answered for a client that did not negotiate the extension',
      async run(ctx) {
        const answer = await (await ctx.connect({})).request(`${ctx.id ?? MANIFEST_ID}/get`, {});
        ensure(typeof answer.etag === 'string' && isRecord(answer.manifest), `get answered ${describe(answer)}`);
      },
    },
    {
      id: 'manifest/tools',
      requirement: 'MAN-5',
      level: 'MUST',
      title: 'manifest tools are sorted by name, exist in tools/list, and carry its description and input schema',
      async run(ctx) {
        const { tools } = await fetchManifest(ctx);
        const names = tools.map((tool) => String(tool.name));
        ensure(names.join('\n') === [...names].sort().join('\n'), `tools are not sorted by name: ${describe(names)}`);
        for (const entry of tools) {
          const listed = ctx.server.tools.find((tool) => tool.name === entry.name);
          ensure(listed !== undefined, `the manifest lists ${describe(entry.name)}, which tools/list does not`);
          ensure(
            listed.description === undefined
              ? typeof entry.description === 'string'
              : entry.description === listed.description,
            `${listed.name}: description ${describe(entry.description)}, tools/list says ${describe(listed.description)}`,
          );
          ensure(
            canonicalJson(entry.input_schema) === canonicalJson(listed.inputSchema),
            `${listed.name}: input_schema differs from tools/list`,
          );
        }
      },
    },
    {
      id: 'manifest/lists-every-tool',
      requirement: 'MAN-5',
      level: 'SHOULD',
      title:
        'every tools/list tool named like ^[a-z][a-z0-9_]*$ is in the manifest (a server may exclude some on purpose)',
      async run(ctx) {
        const { tools } = await fetchManifest(ctx);
        const missing = ctx.server.tools.filter(
          (tool) => TOOL_NAME.test(tool.name) && !tools.some((entry) => entry.name === tool.name),
        );
        ensure(missing.length === 0, `not in the manifest: ${missing.map((tool) => tool.name).join(', ')}`);
      },
    },
    {
      id: 'manifest/tool-fields',
      requirement: 'MAN-6',
      level: 'MUST',
      title:
        'per-tool fields agree with the tools/list metadata of confirmation, permissions, idempotency and streaming',
      async run(ctx) {
        const { tools } = await fetchManifest(ctx);
        const problems: string[] = [];
        for (const entry of tools) {
          const listed = ctx.server.tools.find((tool) => tool.name === entry.name);
          if (listed === undefined) continue;
          const confirmation = metaOf(listed, 'confirmation');
          if (entry.requires_confirmation !== (confirmation?.requires_confirmation === true))
            problems.push(`${listed.name}: requires_confirmation ${describe(entry.requires_confirmation)}`);
          const scopes = metaOf(listed, 'permissions')?.required_scopes;
          if (Array.isArray(scopes) && canonicalJson(entry.required_scopes) !== canonicalJson(scopes))
            problems.push(
              `${listed.name}: required_scopes ${describe(entry.required_scopes)}, tools/list ${describe(scopes)}`,
            );
          const hinted = listed.annotations?.readOnlyHint === true || listed.annotations?.idempotentHint === true;
          const idempotent = hinted || metaOf(listed, 'idempotency')?.idempotent_capable === true;
          if (entry.idempotent !== idempotent)
            problems.push(
              `${listed.name}: idempotent ${describe(entry.idempotent)}, tools/list says ${String(idempotent)}`,
            );
          const streams = metaOf(listed, 'streaming') !== undefined;
          if ((entry.supports_streaming === true) !== streams)
            problems.push(`${listed.name}: supports_streaming ${describe(entry.supports_streaming)}`);
        }
        ensure(problems.length === 0, problems.join('; '));
      },
    },
    {
      id: 'manifest/extensions',
      requirement: 'MAN-7',
      level: 'MUST',
      title:
        'extensions maps every advertised identifier to its version, and supported_extensions names the seed names of ours',
      async run(ctx) {
        const { manifest } = await fetchManifest(ctx);
        const extensions = isRecord(manifest.extensions) ? manifest.extensions : {};
        const supported = Array.isArray(manifest.supported_extensions) ? manifest.supported_extensions : [];
        const problems: string[] = [];
        for (const [id, settings] of Object.entries(ctx.server.extensions)) {
          const version = isRecord(settings) ? settings.version : undefined;
          if (extensions[id] !== version)
            problems.push(`extensions[${id}] is ${describe(extensions[id])}, advertised ${describe(version)}`);
          const family = familyOf(id);
          for (const name of family === undefined ? [] : (SEED_NAMES[family] ?? [])) {
            if (!supported.includes(name)) problems.push(`supported_extensions lacks "${name}" for ${id}`);
          }
        }
        ensure(problems.length === 0, problems.join('; '));
      },
    },
    {
      id: 'manifest/etag',
      requirement: 'MAN-10',
      level: 'MUST',
      title: 'etag is the lowercase hex SHA-256 of the canonical manifest',
      async run(ctx) {
        const { etag, manifest } = await fetchManifest(ctx);
        ensure(etag === canonicalHash(manifest), `etag ${describe(etag)} is not the SHA-256 of the canonical manifest`);
      },
    },
    {
      id: 'manifest/not-modified',
      requirement: 'MAN-11',
      level: 'MUST',
      title: 'get with the current etag answers not_modified: true without a manifest; another etag gets the manifest',
      async run(ctx) {
        const { etag } = await fetchManifest(ctx);
        const probe = await ctx.connect(withErrors(ctx, MANIFEST_ID));
        const same = await probe.request(`${ctx.id ?? MANIFEST_ID}/get`, { etag });
        ensure(
          same.not_modified === true && !('manifest' in same),
          `get with the current etag answered not_modified ${describe(same.not_modified)}${'manifest' in same ? ' and a manifest' : ''}`,
        );
        const other = await probe.request(`${ctx.id ?? MANIFEST_ID}/get`, { etag: 'conformance-stale-etag' });
        ensure(
          other.not_modified === false && isRecord(other.manifest),
          `get with a stale etag answered not_modified ${describe(other.not_modified)}`,
        );
      },
    },
    {
      id: 'manifest/invalid-params',
      requirement: 'MAN-12',
      level: 'MUST',
      title: 'a malformed etag (not a string, empty) is refused with -32602 INVALID_INPUT pointing at /etag',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, MANIFEST_ID));
        for (const etag of [42, '']) {
          const data = await expectMethodError(
            ctx,
            probe,
            `${ctx.id ?? MANIFEST_ID}/get`,
            { etag },
            { category: 'invalid_input', code: 'INVALID_INPUT' },
          );
          ensure(
            detailsOf(data).pointer === '/etag',
            `etag ${describe(etag)}: details.pointer is ${describe(detailsOf(data).pointer)}`,
          );
        }
      },
    },
  ],
};
