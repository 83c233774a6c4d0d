/**
 * Secrets behind the gateway: the unmodified
 * `@modelcontextprotocol/server-filesystem` (over stdio) reads a file holding
 * a fake secret of every built-in kind to a real client over Streamable HTTP.
 * The client gets the file redacted, with the count in the gateway's `_meta`
 * entry (GW-23); the gateway's log, its spans and an upstream's error name no
 * secret (GW-24); a person approving a write is shown the content redacted and
 * the audit keeps none, while the file gets the real content (GW-25).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, type AppendOptions, type SetOptions, type ToolResult } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import type { ConfirmationRequest } from '@ext/confirmation/client';
import { readConfirmationAudit } from '@ext/confirmation/server';
import { errorsClient } from '@ext/errors/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS } from '../redact/detectors.js';
import { redactionMarker } from '../redact/pattern-detector.js';
import { createRedactor } from '../redact/redactor.js';
import { GATEWAY_META_KEY } from '../redact/tool-results.js';
import { recordingLogger } from '../upstream/testing/servers.js';
import {
  closeAfterEach,
  connectClient,
  ERAS,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  textOf,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterEach();

// Every secret below is fake and assembled from pieces at run time, so that no secret scanner
// (ours or the repository's) sees a whole key in this file. Each has a seed of its own.
const mixed = (seed: string, length: number): string => seed.padEnd(length, 'aB3');
const base64 = (seed: string, length: number): string => seed.padEnd(length, 'k9/Q+');
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A line of the file, and the part of it that must never reach the client. */
interface Planted {
  readonly line: string;
  readonly secret: string;
}

const PEM_LINE = 'MIIE' + mixed('PEMBODY', 60);
const AWS_SECRET = base64('AWSsecret', 40);
const GITHUB_TOKEN = 'ghp_' + mixed('GITHUB', 36);
const JWT = [b64url({ alg: 'HS256', typ: 'JWT' }), b64url({ sub: 'fake' }), mixed('JWTsig', 43)].join('.');
const BASIC = Buffer.from('admin:' + 'Basic-Fake-Pw').toString('base64');

/** One secret per built-in detector, each in the context that detector looks for. */
const PLANTED: Readonly<Record<string, Planted>> = {
  'private-key': {
    line: ['-----BEGIN RSA PRIVATE KEY-----', PEM_LINE, mixed('pembody', 64), '-----END RSA PRIVATE KEY-----'].join(
      '\n',
    ),
    secret: PEM_LINE,
  },
  'aws-access-key-id': { line: `aws_access_key_id = AKIA${'AWSKEYID'.padEnd(16, 'X')}`, secret: 'AKIAAWSKEYID' },
  'aws-secret-access-key': { line: `aws_secret_access_key = ${AWS_SECRET}`, secret: AWS_SECRET },
  'gcp-api-key': { line: `maps: key=AIza${mixed('GCP', 35)}&q=1`, secret: 'AIza' + mixed('GCP', 35) },
  'azure-storage-key': {
    line: `DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=${base64('AZURE', 86)}==;EndpointSuffix=core.windows.net`,
    secret: base64('AZURE', 86),
  },
  'github-token': { line: `token ${GITHUB_TOKEN}`, secret: GITHUB_TOKEN },
  'gitlab-token': { line: `GL glpat-${mixed('GITLAB', 20)}.`, secret: 'glpat-' + mixed('GITLAB', 20) },
  'slack-token': { line: 'xoxb-' + '1234567890-' + '0987654321-' + mixed('SLACK', 24), secret: mixed('SLACK', 24) },
  'slack-webhook': {
    line: `post to https://hooks.slack.com/services/T0FAKE00/B0FAKE00/${mixed('HOOK', 24)} now`,
    secret: mixed('HOOK', 24),
  },
  'stripe-key': { line: 'sk_' + 'live_' + mixed('STRIPE', 24), secret: 'live_' + mixed('STRIPE', 24) },
  'npm-token': { line: `//registry/:_authToken npm_${mixed('NPM', 36)}`, secret: mixed('NPM', 36) },
  jwt: { line: `jwt: ${JWT}`, secret: JWT.split('.')[2] ?? JWT },
  'url-credentials': {
    line: 'DATABASE_URL=postgres://app:' + 'Url-Fake-Pw' + '@db.internal:5432/app',
    secret: 'Url-Fake-Pw',
  },
  'basic-auth': { line: `Authorization: Basic ${BASIC}`, secret: BASIC },
  bearer: { line: 'Authorization: Bearer ' + 'Opaque-Fake-Bearer', secret: 'Opaque-Fake-Bearer' },
  'password-field': { line: 'DB_PASSWORD: ' + 'Field-Fake-Pw9 (prod)', secret: 'Field-Fake-Pw9' },
};

const DETECTOR_IDS = Object.keys(PLANTED).sort();
const FILE = ['# credentials.txt: every one of them fake', ...Object.values(PLANTED).map((p) => p.line), ''].join('\n');

/** Named in a folder the upstream is told to allow but cannot open: its startup warning carries it to the log. */
const LOGGED_TOKEN = 'ghp_' + mixed('LOGGED', 36);
const MISSING_DIR = join(tmpdir(), `gateway-e2e-missing-${LOGGED_TOKEN}`);
/** Named in a path outside the allowed folder: the upstream's error result repeats it. */
const PATH_TOKEN = 'ghp_' + mixed('OUTSIDE', 36);

/** What is written through a gated `write_file`, shown in its confirmation message. */
const WRITTEN = `aws_secret_access_key = ${AWS_SECRET}\ntoken ${GITHUB_TOKEN}`;

const SECRETS = [...Object.values(PLANTED).map((p) => p.secret), LOGGED_TOKEN, PATH_TOKEN];

function expectNoSecret(what: string, text: string): void {
  for (const secret of SECRETS) expect(text, `${what} holds ${secret}`).not.toContain(secret);
}

/** A memory store that keeps a copy of everything written to it. */
class WatchedStore extends MemoryStore {
  readonly written: string[] = [];

  override set(key: string, value: JsonValue, options?: SetOptions): Promise<void> {
    this.written.push(JSON.stringify([key, value]));
    return super.set(key, value, options);
  }

  override setIfAbsent(key: string, value: JsonValue, options?: SetOptions): Promise<boolean> {
    this.written.push(JSON.stringify([key, value]));
    return super.setIfAbsent(key, value, options);
  }

  override compareAndSet(
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    options?: SetOptions,
  ): Promise<boolean> {
    this.written.push(JSON.stringify([key, next]));
    return super.compareAndSet(key, expected, next, options);
  }

  override append(stream: string, value: JsonValue, options?: AppendOptions): Promise<string> {
    this.written.push(JSON.stringify([stream, value]));
    return super.append(stream, value, options);
  }
}

// Spans, recorded in memory. The gateway has no OpenTelemetry dependency of its own: the API and the SDK are
// loaded from where @ext/core finds them (its optional peer, installed for its own tests), the copy its telemetry uses.
interface FinishedSpan {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly events: readonly unknown[];
  readonly status: unknown;
  readonly links: readonly unknown[];
}
interface TraceSdk {
  readonly InMemorySpanExporter: new () => { getFinishedSpans(): FinishedSpan[]; reset(): void };
  readonly SimpleSpanProcessor: new (exporter: unknown) => unknown;
  readonly BasicTracerProvider: new (config: { readonly spanProcessors: unknown[] }) => unknown;
}
interface TraceApi {
  readonly trace: { setGlobalTracerProvider(provider: unknown): boolean; disable(): void };
}
const fromCore = createRequire(createRequire(import.meta.url).resolve('@ext/core/package.json'));
const otel = fromCore('@opentelemetry/api') as TraceApi;
const sdk = fromCore('@opentelemetry/sdk-trace-base') as TraceSdk;
const spans = new sdk.InMemorySpanExporter();

beforeAll(() => {
  otel.trace.setGlobalTracerProvider(
    new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(spans)] }),
  );
});

afterAll(() => {
  otel.trace.disable();
});

interface SecretsGateway extends ServedGateway {
  /** The only folder the filesystem server may touch, holding `credentials.txt`. */
  readonly root: string;
  readonly logger: ReturnType<typeof recordingLogger>;
  readonly store: WatchedStore;
}

async function secretsGateway(redact?: Record<string, unknown>): Promise<SecretsGateway> {
  const root = await tempDir('redact');
  await writeFile(join(root, 'credentials.txt'), FILE);
  const upstream = filesystemUpstream(root);
  const config = gatewayConfig({
    upstreams: { files: { ...upstream, args: [...(upstream.args ?? []), MISSING_DIR] } },
    policy: { write_file: { confirm: { message: 'Write {content}?' } } },
    identity: { anonymous: true },
    store: 'memory',
    ...(redact === undefined ? {} : { redact }),
  });
  const logger = recordingLogger();
  const store = new WatchedStore();
  return { ...(await serveGateway(config, { logger, store })), root, logger, store };
}

/** The upstream's startup warning names the missing folder, token and all: it must be logged, redacted. */
async function expectLogRedacted(served: SecretsGateway): Promise<void> {
  await expect.poll(() => JSON.stringify(served.logger.entries)).toContain(redactionMarker('github-token'));
  expect(served.logger.entries.some((entry) => entry.message.includes('Cannot access directory'))).toBe(true);
  expectNoSecret('the log', JSON.stringify(served.logger.entries));
}

async function read(served: SecretsGateway, era: Era, path: string): Promise<ToolResult> {
  const { client } = await connectClient(served.url, { era, extensions: [errorsClient()] });
  return client.callTool('read_text_file', { path });
}

describe('the fixture', () => {
  it('plants a secret for every built-in detector, each of which the redactor finds', () => {
    expect(DETECTOR_IDS).toEqual(BUILTIN_DETECTORS.map((detector) => detector.id).sort());
    const redacted = createRedactor().text(FILE);
    expect(redacted.detectors).toEqual(DETECTOR_IDS);
    for (const id of DETECTOR_IDS) expect(redacted.value).toContain(redactionMarker(id));
    expectNoSecret('the redacted file', redacted.value);
  });
});

describe.each(ERAS)('secrets behind the gateway (%s)', (era) => {
  it('GW-23 GW-24: a read reaches the client redacted with the count in _meta; the log and the spans hold no secret', async () => {
    const served = await secretsGateway();
    spans.reset();
    const result = await read(served, era, join(served.root, 'credentials.txt'));

    const expected = createRedactor().text(FILE);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(expected.value);
    expect(result.structuredContent).toEqual({ content: expected.value });
    for (const id of DETECTOR_IDS) expect(textOf(result)).toContain(redactionMarker(id));
    // The file's text is in the result twice: as text content and as structured content.
    expect(result._meta?.[GATEWAY_META_KEY]).toEqual({
      redaction: { count: 2 * expected.count, detectors: DETECTOR_IDS },
      policyVersion: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
    });
    expectNoSecret('the result', JSON.stringify(result));

    await expectLogRedacted(served);
    // What a span exporter sends: names, attributes, events (exceptions), status and links.
    const traced = spans
      .getFinishedSpans()
      .map(({ name, attributes, events, status, links }) => ({ name, attributes, events, status, links }));
    expect(traced.map((span) => span.name)).toContain('tools/call read_text_file');
    expectNoSecret('the spans', JSON.stringify(traced));
  });

  it('GW-23: an upstream error result that names a secret reaches the client redacted', async () => {
    const served = await secretsGateway();
    const outside = join(tmpdir(), `elsewhere-${PATH_TOKEN}.txt`);
    const result = await read(served, era, outside);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/outside allowed directories/i);
    expect(textOf(result)).toContain(redactionMarker('github-token'));
    expectNoSecret('the error result', JSON.stringify(result));
  });

  it('GW-25: a gated write shows the person the content redacted; the audit and the store keep no secret; the file gets it all', async () => {
    const served = await secretsGateway();
    const asked: ConfirmationRequest[] = [];
    const { client } = await connectClient(served.url, {
      era,
      elicit: (request) => {
        asked.push(request);
        return Promise.resolve(true);
      },
    });
    const path = join(served.root, 'written.txt');
    const written = await client.callTool('write_file', { path, content: WRITTEN });
    expect(written.isError).toBeFalsy();
    expect(await readFile(path, 'utf8')).toBe(WRITTEN);

    expect(asked).toHaveLength(1);
    const [request] = asked;
    const message = request?.kind === 'call' ? request.message : '';
    expect(message).toMatch(/^Write /);
    expect(message).toContain(redactionMarker('aws-secret-access-key'));
    expect(message).toContain(redactionMarker('github-token'));
    expectNoSecret('what the person was asked', JSON.stringify(asked));

    const audit = await readConfirmationAudit(served.gateway.store);
    expect(audit.map((item) => item.entry.event)).toEqual(['elicitation_accepted']);
    expectNoSecret('the audit', JSON.stringify(audit));
    expectNoSecret('the store', served.store.written.join('\n'));
    await expectLogRedacted(served);
  });
});

describe('redact.results: false', () => {
  it('GW-23 GW-24: passes the result through unchanged, and still redacts the log', async () => {
    const served = await secretsGateway({ results: false });
    const result = await read(served, 'legacy', join(served.root, 'credentials.txt'));
    expect(textOf(result)).toBe(FILE);
    // Only the policy version: nothing was redacted, so nothing is counted.
    expect(result._meta?.[GATEWAY_META_KEY]).toEqual({
      policyVersion: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
    });
    await expectLogRedacted(served);
  });
});
