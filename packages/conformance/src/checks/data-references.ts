/** The data-references suite: the checks of a server that advertises `io.github.mcp-ext/data-references`. */
import { createHash } from 'node:crypto';
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { CheckFailure, describe, ensure } from '../assert.js';
import { safeTools, sampleArguments } from '../tools.js';
import type { CheckContext, ExtensionSuite, ListedTool, ServerFacts } from '../types.js';
import { detailsOf, expectMethodError, resultMeta, withErrors } from './methods.js';

export const DATA_REFERENCES_ID = 'io.github.mcp-ext/data-references';
const FIELDS = ['ref_id', 'origin_server', 'mime_type', 'size_bytes', 'expires_at', 'access_url', 'checksum'];
// eslint-disable-next-line no-control-regex -- DREF-2 forbids exactly these characters in a media type.
const CONTROL = /[\u0000-\u001f\u007f]/;
const HTTP_TIMEOUT_MS = 10_000;

interface ReferencingCall {
  readonly tool: ListedTool;
  readonly args: Record<string, unknown>;
  readonly result: Record<string, unknown>;
  readonly references: Record<string, unknown>[];
}

function referencesIn(ctx: CheckContext, result: Record<string, unknown>): Record<string, unknown>[] {
  const entry = resultMeta(result, ctx.id);
  return Array.isArray(entry?.references) ? entry.references.filter(isRecord) : [];
}

const calls = new WeakMap<ServerFacts, Promise<ReferencingCall>>();

/**
 * The run's first tool result that hands out a reference: read-only tools
 * are tried first, other tools only when effects are allowed.
 */
function referencingCall(ctx: CheckContext): Promise<ReferencingCall> {
  let call = calls.get(ctx.server);
  if (call === undefined) {
    call = (async () => {
      const probe = await ctx.connect(withErrors(ctx, DATA_REFERENCES_ID));
      const safe = safeTools(ctx.server.tools);
      const others = ctx.allowEffects
        ? ctx.server.tools
            .filter((tool) => !safe.some((entry) => entry.tool === tool))
            .flatMap((tool) => {
              const args = sampleArguments(tool);
              return args === undefined ? [] : [{ tool, args }];
            })
        : [];
      for (const { tool, args } of [...safe, ...others]) {
        const result = await probe.callTool(tool.name, args);
        const references = referencesIn(ctx, result);
        if (references.length > 0) return { tool, args, result, references };
      }
      return ctx.skip(
        ctx.allowEffects
          ? 'no tool handed out a reference with sample arguments'
          : 'no read-only tool handed out a reference: run with --allow-effects to try the others',
      );
    })();
    calls.set(ctx.server, call);
  }
  return call;
}

async function firstReference(ctx: CheckContext): Promise<Record<string, unknown>> {
  const [reference] = (await referencingCall(ctx)).references;
  ensure(reference !== undefined, 'no reference');
  return reference;
}

function accessUrl(reference: Record<string, unknown>): URL {
  ensure(
    typeof reference.access_url === 'string' && URL.canParse(reference.access_url),
    `access_url is ${describe(reference.access_url)}`,
  );
  return new URL(reference.access_url);
}

async function httpRequest(
  url: URL,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (error) {
    throw new CheckFailure(
      `${init.method ?? 'GET'} ${url.origin}${url.pathname} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** A request a conforming importer refuses before any transfer, carrying a reference in the seed shape. */
function importRequest(accessUrlText: string): Record<string, unknown> {
  const expires = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000).toISOString().replace('.000Z', 'Z');
  return {
    ref_id: 'conformance-reference-0000000000',
    origin_server: 'conformance',
    mime_type: 'text/plain',
    size_bytes: 1,
    expires_at: expires,
    access_url: accessUrlText,
    checksum: { algorithm: 'sha256', value: '0'.repeat(64) },
  };
}

/** `@ext/data-references` (SPEC: packages/data-references/SPEC.md). */
export const dataReferencesSuite: ExtensionSuite = {
  extension: 'data-references',
  ids: [DATA_REFERENCES_ID],
  spec: 'packages/data-references/SPEC.md',
  checks: [
    {
      id: 'data-references/settings',
      requirement: 'DREF-1',
      level: 'MUST',
      title: 'settings carry origin_server as a string, and integer limits for import and upload when offered',
      run(ctx) {
        const { origin_server: origin, import: importing, upload } = ctx.settings;
        ensure(
          origin === undefined || (typeof origin === 'string' && origin !== ''),
          `origin_server is ${describe(origin)}`,
        );
        ensure(
          importing === undefined || (isRecord(importing) && Number.isSafeInteger(importing.max_size_bytes)),
          `import is ${describe(importing)}`,
        );
        ensure(
          upload === undefined ||
            (isRecord(upload) &&
              Number.isSafeInteger(upload.max_size_bytes) &&
              Number.isSafeInteger(upload.ttl_seconds)),
          `upload is ${describe(upload)}`,
        );
        return Promise.resolve();
      },
    },
    {
      id: 'data-references/reference-shape',
      requirement: 'DREF-2',
      level: 'MUST',
      title:
        'a handed-out reference is a seed DataReference with every field, a sha256 checksum and no control character in mime_type',
      async run(ctx) {
        for (const reference of (await referencingCall(ctx)).references) {
          ctx.expectSeedShape(reference, 'data-references', 'DataReference', 'the reference');
          const missing = FIELDS.filter((field) => !(field in reference));
          ensure(missing.length === 0, `${describe(reference.ref_id)} lacks ${missing.join(', ')}`);
          ensure(
            typeof reference.ref_id === 'string' && /^[A-Za-z0-9_-]{22,}$/.test(reference.ref_id),
            `ref_id ${describe(reference.ref_id)} is not URL-safe with 128 bits or more`,
          );
          ensure(
            typeof reference.mime_type === 'string' && !CONTROL.test(reference.mime_type),
            `mime_type ${describe(reference.mime_type)}`,
          );
          const checksum = isRecord(reference.checksum) ? reference.checksum : {};
          ensure(
            checksum.algorithm === 'sha256' &&
              typeof checksum.value === 'string' &&
              /^[0-9a-f]{64}$/i.test(checksum.value),
            `checksum is ${describe(reference.checksum)}`,
          );
          const origin = ctx.settings.origin_server;
          ensure(
            origin === undefined || reference.origin_server === origin,
            `origin_server ${describe(reference.origin_server)}, advertised ${describe(origin)}`,
          );
        }
      },
    },
    {
      id: 'data-references/resource-links',
      requirement: 'DREF-3',
      level: 'MUST',
      title:
        'a result handing out references carries one resource_link per reference (uri = access_url, name = ref_id)',
      async run(ctx) {
        const { result, references } = await referencingCall(ctx);
        const content = Array.isArray(result.content) ? result.content.filter(isRecord) : [];
        const links = content.filter((block) => block.type === 'resource_link');
        for (const reference of references) {
          const link = links.find((block) => block.name === reference.ref_id);
          ensure(
            link !== undefined,
            `no resource_link named ${describe(reference.ref_id)} among ${describe(content.map((block) => block.type))}`,
          );
          ensure(
            link.uri === reference.access_url,
            `the resource_link of ${String(reference.ref_id)} points at ${describe(link.uri)}, not its access_url`,
          );
          ensure(
            link.mimeType === reference.mime_type,
            `the resource_link of ${String(reference.ref_id)} has mimeType ${describe(link.mimeType)}`,
          );
        }
      },
    },
    {
      id: 'data-references/not-negotiated',
      requirement: 'DREF-3',
      level: 'MUST',
      title: 'a client that did not negotiate gets no result._meta[id]',
      async run(ctx) {
        const { tool, args } = await referencingCall(ctx);
        const plain = await (await ctx.connect({})).callTool(tool.name, args);
        ensure(
          resultMeta(plain, ctx.id) === undefined,
          `result._meta carries ${ctx.id ?? DATA_REFERENCES_ID} for a client that never advertised it`,
        );
      },
    },
    {
      id: 'data-references/download',
      requirement: 'DREF-8',
      level: 'MUST',
      title:
        'the access_url answers GET with 200, the mime_type, size and sha256 of the reference, HEAD with 200, other methods with 405 and Allow',
      async run(ctx) {
        const reference = await firstReference(ctx);
        const url = accessUrl(reference);
        const got = await httpRequest(url);
        ensure(got.status === 200, `GET answered ${String(got.status)}`);
        const type = got.headers.get('content-type') ?? '';
        ensure(
          typeof reference.mime_type === 'string' &&
            type.toLowerCase().startsWith(reference.mime_type.split(';')[0]?.trim().toLowerCase() ?? ''),
          `Content-Type ${describe(type)}, mime_type ${describe(reference.mime_type)}`,
        );
        ensure(
          got.body.length === reference.size_bytes,
          `GET returned ${String(got.body.length)} bytes, size_bytes is ${describe(reference.size_bytes)}`,
        );
        const checksum = isRecord(reference.checksum) ? reference.checksum.value : undefined;
        ensure(createHash('sha256').update(got.body).digest('hex') === checksum, 'the bytes do not match the checksum');
        ensure(
          got.headers.get('x-content-type-options') === 'nosniff',
          `X-Content-Type-Options is ${describe(got.headers.get('x-content-type-options'))}`,
        );
        const head = await httpRequest(url, { method: 'HEAD' });
        ensure(
          head.status === 200 && head.body.length === 0,
          `HEAD answered ${String(head.status)} with ${String(head.body.length)} bytes`,
        );
        const post = await httpRequest(url, { method: 'POST' });
        ensure(
          post.status === 405 && (post.headers.get('allow') ?? '') !== '',
          `POST answered ${String(post.status)}, Allow ${describe(post.headers.get('allow'))}`,
        );
      },
    },
    {
      id: 'data-references/range',
      requirement: 'DREF-9',
      level: 'MUST',
      title:
        'a single Range gets 206 with Content-Range and exactly those bytes; a range past the end gets 416 with bytes */size',
      async run(ctx) {
        const reference = await firstReference(ctx);
        const size = reference.size_bytes;
        if (typeof size !== 'number' || size < 1) return ctx.skip('the reference is empty');
        const url = accessUrl(reference);
        const first = await httpRequest(url, { headers: { range: 'bytes=0-0' } });
        ensure(
          first.status === 206 && first.body.length === 1,
          `Range bytes=0-0 answered ${String(first.status)} with ${String(first.body.length)} bytes`,
        );
        ensure(
          first.headers.get('content-range') === `bytes 0-0/${String(size)}`,
          `Content-Range is ${describe(first.headers.get('content-range'))}`,
        );
        const past = await httpRequest(url, { headers: { range: `bytes=${String(size)}-` } });
        ensure(
          past.status === 416 && past.headers.get('content-range') === `bytes */${String(size)}`,
          `a range past the end answered ${String(past.status)}, Content-Range ${describe(past.headers.get('content-range'))}`,
        );
      },
    },
    {
      id: 'data-references/bad-signature',
      requirement: 'DREF-6',
      level: 'MUST',
      title: 'a tampered, missing or re-dated signature gets 403',
      async run(ctx) {
        const url = accessUrl(await firstReference(ctx));
        const sig = url.searchParams.get('sig') ?? '';
        const expires = url.searchParams.get('expires') ?? '';
        ensure(sig !== '' && expires !== '', `access_url carries no sig or expires: ${url.search}`);
        const variants: [string, URL][] = [];
        const tampered = new URL(url);
        // The first character: a last one can differ only in bits an encoding leaves spare.
        tampered.searchParams.set('sig', `${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`);
        variants.push(['a tampered signature', tampered]);
        const unsigned = new URL(url);
        unsigned.searchParams.delete('sig');
        variants.push(['no signature', unsigned]);
        const redated = new URL(url);
        redated.searchParams.set('expires', String(Number(expires) + 3600));
        variants.push(['a changed expiry', redated]);
        for (const [what, variant] of variants) {
          const answer = await httpRequest(variant);
          ensure(answer.status === 403, `${what} got ${String(answer.status)}, expected 403`);
        }
      },
    },
    {
      id: 'data-references/import-malformed',
      requirement: 'DREF-11',
      level: 'MUST',
      title: 'import with malformed params is refused with -32602 INVALID_INPUT naming the field',
      async run(ctx) {
        if (!isRecord(ctx.settings.import)) return ctx.skip('the server does not advertise import');
        const probe = await ctx.connect(withErrors(ctx, DATA_REFERENCES_ID));
        const data = await expectMethodError(
          ctx,
          probe,
          `${ctx.id ?? DATA_REFERENCES_ID}/import`,
          { origin_server: 42 },
          { category: 'invalid_input', code: 'INVALID_INPUT' },
        );
        const details = detailsOf(data);
        ensure(
          typeof details.field === 'string' && typeof details.pointer === 'string',
          `details are ${describe(details)}`,
        );
      },
    },
    {
      id: 'data-references/import-unsupported-url',
      requirement: 'DREF-12',
      level: 'MUST',
      title:
        'import of a non-http(s) or credentialed access_url answers a seed ImportFromRefResponse "failed" with UNSUPPORTED_URL',
      async run(ctx) {
        if (!isRecord(ctx.settings.import)) return ctx.skip('the server does not advertise import');
        const probe = await ctx.connect(withErrors(ctx, DATA_REFERENCES_ID));
        for (const url of ['ftp://conformance.invalid/data', 'https://user:secret@conformance.invalid/data']) {
          const { _meta: _ignored, ...answer } = await probe.request(
            `${ctx.id ?? DATA_REFERENCES_ID}/import`,
            importRequest(url),
          );
          ctx.expectSeedShape(answer, 'data-references', 'ImportFromRefResponse', `the import answer for ${url}`);
          const error = isRecord(answer.error) ? answer.error : {};
          ensure(
            answer.status === 'failed' && error.code === 'UNSUPPORTED_URL',
            `import of ${url} answered ${describe(answer)}`,
          );
        }
      },
    },
    {
      id: 'data-references/upload-limit',
      requirement: 'DREF-19',
      level: 'MUST',
      title:
        'upload of a declared size over the limit is refused with -32602 PAYLOAD_TOO_LARGE; without upload advertised the method is not served',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, DATA_REFERENCES_ID));
        const upload = ctx.settings.upload;
        const method = `${ctx.id ?? DATA_REFERENCES_ID}/upload`;
        if (!isRecord(upload)) {
          try {
            const answer = await probe.request(method, { mime_type: 'application/octet-stream', size_bytes: 1 });
            throw new CheckFailure(`upload is not advertised but answered ${describe(answer)}`);
          } catch (error) {
            if (!(error instanceof WireError)) throw error;
            ensure(
              error.code === -32601,
              `upload is not advertised but failed with ${String(error.code)} rather than -32601`,
            );
            return;
          }
        }
        await expectMethodError(
          ctx,
          probe,
          method,
          { mime_type: 'application/octet-stream', size_bytes: Number(upload.max_size_bytes) + 1 },
          { category: 'invalid_input', code: 'PAYLOAD_TOO_LARGE' },
        );
      },
    },
  ],
};
