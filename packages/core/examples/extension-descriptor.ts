/** The README's "Writing an extension": the two factories of an extension and the plain descriptors they return. */
// #region descriptor
import { extensionId, type ClientExtension, type ServerExtension } from '@ext/core';

export const EXAMPLE_ID = extensionId('example'); // io.github.mcp-ext/example

export interface ExampleServerOptions {
  /** What the ping method answers. */
  readonly greeting?: string;
}

export function exampleServer(options: ExampleServerOptions = {}): ServerExtension {
  const greeting = options.greeting ?? 'pong';
  return {
    side: 'server',
    name: '@ext/example', // the npm name: messages and `requires`
    ids: [EXAMPLE_ID],
    settings: { version: '1.0' }, // advertised in capabilities.extensions[EXAMPLE_ID]
    stage: { after: 'intent' }, // where its middleware runs: a named stage, or just before or after one
    middleware: (call, ctx, next) => {
      ctx.logger.debug?.(`example: ${call.name}`, { principal: ctx.principal });
      return next();
    },
    toolMeta: (tool) => (tool.annotations?.readOnlyHint === true ? { cacheable: true } : undefined), // Tool._meta[id]
    methods: { ping: () => ({ greeting }) }, // served as io.github.mcp-ext/example/ping
  };
}

export function exampleClient(): ClientExtension {
  return {
    side: 'client',
    name: '@ext/example',
    ids: [EXAMPLE_ID],
    settings: { version: '1.0' },
    prepareCall: (call, negotiated) => {
      if (negotiated !== undefined) call.meta[EXAMPLE_ID] = { sent_at: Date.now() }; // params._meta[id]
    },
  };
}
// #endregion descriptor
