/** What the contention benchmark and its server processes share: the tool, the counter, the messages. */

/** Parent -> child. */
export type ContentionCommand = { readonly type: 'reset' } | { readonly type: 'stats' } | { readonly type: 'stop' };

/** Child -> parent. */
export type ContentionAnswer =
  | { readonly type: 'ready'; readonly url: string }
  | { readonly type: 'reset' }
  | {
      readonly type: 'stats';
      /** The longest the event loop was late while the calls ran, in ms. */
      readonly maxLoopDelayMs: number;
      /** Times the store logged that Redis became unavailable. */
      readonly outages: number;
    };

export interface ContentionServerConfig {
  readonly redisUrl: string;
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
}

/** The store key the tool counts its executions under. */
export const EXECUTIONS_KEY = 'contention/executions';
export const WRITE_TOOL = 'create_note';
