// The sources of a new extension package: the SDK-free entry, the two halves and an end-to-end test.

const schema = ({
  name,
  npm,
  constant,
  pascal,
  example,
}) => `/** The wire contract: the identifier, the version, and one TypeBox schema per payload. */
${example ? '' : "import { extensionId } from '@ext/core';\n"}import Type, { type Static } from 'typebox';

/** The extension identifier. */
export const ${constant}_ID = ${example ? `'com.example/${name}'` : `extensionId('${name}')`};

/** npm package name: the core names the extension by it in messages and \`requires\`. */
export const ${constant}_PACKAGE = '${npm}';

/** Wire contract version this package speaks. */
export const ${constant}_WIRE_VERSION = '1.0';

/** \`_meta[${constant}_ID]\` of a result. */
export const ${pascal}ResultMetaSchema = Type.Object({ calls: Type.Integer({ minimum: 1 }) });
export type ${pascal}ResultMeta = Static<typeof ${pascal}ResultMetaSchema>;
`;

const index = ({
  npm,
  constant,
  pascal,
}) => `/** The \`${npm}\` entry, free of any SDK: the identifier and the wire schemas. */
export { ${constant}_ID, ${constant}_PACKAGE, ${constant}_WIRE_VERSION, ${pascal}ResultMetaSchema } from './schema.js';
export type { ${pascal}ResultMeta } from './schema.js';
`;

const server = ({ npm, camel, constant, pascal }) => `/** The server half of \`${npm}\`. */
import type { ServerExtension } from '@ext/core';
import { ${constant}_ID, ${constant}_PACKAGE, ${constant}_WIRE_VERSION } from './schema.js';

export interface ${pascal}ServerOptions {
  /** Where the middleware runs: a named stage, or just before or after one. Default: just after \`intent\`. */
  readonly stage?: ServerExtension['stage'];
}

/** Counts the calls it answers and says so on each result of a client that negotiated the extension. */
export function ${camel}Server({ stage = { after: 'intent' } }: ${pascal}ServerOptions = {}): ServerExtension {
  let calls = 0;
  return {
    side: 'server',
    name: ${constant}_PACKAGE,
    ids: [${constant}_ID],
    settings: { version: ${constant}_WIRE_VERSION },
    stage,
    middleware: async (_call, ctx, next) => {
      const result = await next();
      calls += 1;
      if (ctx.negotiated(${constant}_ID) === undefined) return result;
      return { ...result, _meta: { ...result._meta, [${constant}_ID]: { calls } } };
    },
  };
}
`;

const client = ({ npm, camel, constant }) => `/** The client half of \`${npm}\`. */
import type { ClientExtension } from '@ext/core';
import { ${constant}_ID, ${constant}_PACKAGE, ${constant}_WIRE_VERSION } from './schema.js';

/** Advertises the extension, so the server answers with it. */
export function ${camel}Client(): ClientExtension {
  return { side: 'client', name: ${constant}_PACKAGE, ids: [${constant}_ID], settings: { version: ${constant}_WIRE_VERSION } };
}
`;

const e2e = ({
  camel,
  constant,
  prefix,
}) => `import { createTestPair, TEST_LINES, type TestPair } from '@ext/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ${camel}Client } from './client.js';
import { ${constant}_ID } from './schema.js';
import { ${camel}Server } from './server.js';

describe.each(TEST_LINES)('on %s', (line) => {
  let pair: TestPair | undefined;
  afterEach(async () => {
    await pair?.close();
  });

  const open = async (negotiated: boolean) =>
    (pair = await createTestPair({
      line,
      serverExtensions: [${camel}Server()],
      clientExtensions: negotiated ? [${camel}Client()] : [],
      setup: (server) => {
        server.registerTool('hello', { description: 'Says hello.' }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
      },
    }));

  it('counts the calls on the results of a client that negotiated it (${prefix}-1)', async () => {
    const { client } = await open(true);
    await client.callTool('hello', {});
    const second = await client.callTool('hello', {});
    expect(second._meta?.[${constant}_ID]).toEqual({ calls: 2 });
  });

  it('sends nothing of it to a client that did not (${prefix}-1)', async () => {
    const { client } = await open(false);
    expect((await client.callTool('hello', {}))._meta?.[${constant}_ID]).toBeUndefined();
  });
});
`;

/** The package's sources, by path. */
export function sourceFiles(names) {
  return {
    'src/schema.ts': schema(names),
    'src/index.ts': index(names),
    'src/server.ts': server(names),
    'src/client.ts': client(names),
    'src/e2e.test.ts': e2e(names),
  };
}
