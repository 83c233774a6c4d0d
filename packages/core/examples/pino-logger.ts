/** The README's logging: a pino logger adapted to core's `Logger` with `pinoLogger`. */
// #region pino
import { pino } from 'pino';
import { composeServer } from '@ext/core';
import { pinoLogger } from '@ext/core/kit';

const logger = pinoLogger(pino({ name: 'tracker' }, pino.destination(2))); // stderr: stdout may carry MCP (stdio)
export const composed = composeServer([], { logger }); // your extensions; or extendServer(mcp, composed, { logger })
// #endregion pino
