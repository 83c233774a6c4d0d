/** Recipe: the MCP endpoint as one route of a Hono app; Hono speaks fetch, so no bridge is needed. */
// #region hono
import { Hono } from 'hono';
import type { DualEraHttpHandler } from '@ext/core/sdk-v2/server';

export function honoApp(handler: DualEraHttpHandler) {
  const app = new Hono();
  app.all('/mcp', (c) => handler.fetch(c.req.raw));
  return app; // Bun, Deno and Workers serve app.fetch; on Node, @hono/node-server
}
// #endregion hono
