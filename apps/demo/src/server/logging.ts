/**
 * The demo servers' logger: pino, one JSON line per record on stderr (stdout
 * carries MCP on stdio), adapted to core's `Logger` with `pinoLogger`.
 * Internal errors arrive at `error` with their correlation id, the tool, the
 * caller and the stack; `TRACKER_LOG_LEVEL` (default `info`) sets the level.
 */
import { pinoLogger } from '@ext/core/kit';
import { type Logger } from '@ext/core';
import { pino, type DestinationStream } from 'pino';

export interface DemoLoggerOptions {
  /** The `name` field of every record. Default `tracker`. */
  readonly name?: string | undefined;
  /** Where records go. Default stderr, written synchronously so nothing is lost when the process exits. */
  readonly destination?: DestinationStream | undefined;
  /** Default `TRACKER_LOG_LEVEL`, else `info`. */
  readonly level?: string | undefined;
}

export function createDemoLogger(options: DemoLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.TRACKER_LOG_LEVEL ?? 'info';
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  return pinoLogger(pino({ name: options.name ?? 'tracker', level }, destination));
}
