/** Recipes: the MCP endpoint as one route of an Express app, without and with a JSON body parser in front. */
// #region express
import express, { type Express } from 'express';
import { nodeListener, type DualEraHttpHandler } from '@ext/core/sdk-v2/server';

export function expressApp(handler: DualEraHttpHandler): Express {
  const app = express();
  app.all('/mcp', nodeListener(handler)); // Node's req/res to the handler's fetch, and back
  return app; // app.listen(3000)
}
// #endregion express

// #region express-json
export function expressAppWithJson(handler: DualEraHttpHandler): Express {
  const app = express();
  // The body is parsed once, here: nodeListener hands req.body on as `parsedBody` (and req.auth as `authInfo`).
  app.use(express.json({ limit: '4mb' }));
  app.all('/mcp', nodeListener(handler));
  return app;
}
// #endregion express-json
