/**
 * The requests of one upstream connection. A listing, harmless to repeat,
 * is made once more on a new session when the connection turns out to be
 * gone; a tool call is tried on the live session (or a new one), each try
 * within its time, retried and guarded by the upstream's resilience. A
 * transient fault counts for the upstream's outage log, any answer as its
 * end.
 */
import type { ExtensionError } from '@ext/core';
import { SdkError, SdkErrorCode, type CallToolResult, type Client, type Tool } from '@modelcontextprotocol/client';
import { atStage, classifyFault, stageOf, unavailable } from './faults.js';
import { callThrough } from './lean-http.js';
import { withListedAnnotations } from './listed-annotations.js';
import type { UpstreamResilience } from './resilience.js';
import { UNSAFE_CALL } from './retry-decision.js';
import { faultContext, type Session, type UpstreamScope, type UpstreamSessions } from './sessions.js';
import { watchingResponses } from './transport.js';
import type { UpstreamCallOptions, UpstreamTool } from './types.js';

type CallParams = Parameters<Client['callTool']>[0];

export class UpstreamCalls {
  readonly #scope: UpstreamScope;
  readonly #sessions: UpstreamSessions;
  readonly #resilience: UpstreamResilience;
  /** The upstream's last listing, which says which calls the lean caller makes. */
  readonly #listed: () => readonly UpstreamTool[] | undefined;

  constructor(
    scope: UpstreamScope,
    sessions: UpstreamSessions,
    resilience: UpstreamResilience,
    listed: () => readonly UpstreamTool[] | undefined,
  ) {
    this.#scope = scope;
    this.#sessions = sessions;
    this.#resilience = resilience;
    this.#listed = listed;
  }

  /** The upstream's tools as it lists them now, with the annotations it sent. */
  listTools(): Promise<Tool[]> {
    const timeout = this.#scope.timeoutMs;
    return this.#run('tools/list', async (client) =>
      withListedAnnotations(client, (await client.listTools(undefined, { timeout, cacheMode: 'refresh' })).tools),
    );
  }

  /**
   * Runs `request`, which is harmless to repeat (a listing), on the live
   * session. When the connection turns out to be gone, connects again once
   * and repeats it.
   */
  async #run<T>(operation: string, request: (client: Client) => Promise<T>): Promise<T> {
    const context = faultContext(this.#scope, operation);
    let session = await this.#sessions.session();
    for (let attempt = 0; ; attempt += 1) {
      try {
        const result = await request(session.client);
        this.#scope.health.recovered();
        return result;
      } catch (error) {
        const fault = classifyFault(error, context);
        if (fault.dropped) this.#sessions.discard(session);
        if (!fault.dropped || attempt > 0 || this.#sessions.closed) throw this.#report(fault.error);
        session = await this.#sessions.session();
      }
    }
  }

  /** Calls a tool, as `UpstreamConnection.callTool` describes. */
  callTool(name: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const { signal, meta } = options;
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const params: CallParams = { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) };
    const call = {
      safety: options.safety ?? UNSAFE_CALL,
      attempts: options.attempts,
      signal,
      timeoutMs: this.#scope.timeoutMs,
    };
    // Only the call's last fault counts for the outage log: one its retry mended is none.
    return this.#resilience
      .run(call, (timeoutMs) => this.#tryCall(params, signal, timeoutMs))
      .catch((error: unknown) => {
        throw stageOf(error) === undefined ? error : this.#report(error as ExtensionError);
      });
  }

  /**
   * One try of a call, on the live session or a new one, within `timeoutMs`.
   * Its fault is thrown marked with how far the request got (what a retry
   * may do about it); an answer that breaks off mid-stream (the upstream
   * died) fails it at once, not at its timeout.
   */
  async #tryCall(params: CallParams, signal: AbortSignal | undefined, timeoutMs: number): Promise<CallToolResult> {
    // Not marked: nothing to retry, and no fault of the upstream's for its breaker.
    if (this.#sessions.closed)
      throw unavailable(faultContext(this.#scope, 'tools/call'), 'the gateway closed it').error;
    // Aborted by the caller, or by the answer breaking off.
    const stop = new AbortController();
    const broken = (error: Error) => {
      stop.abort(new SdkError(SdkErrorCode.ConnectionClosed, `its answer broke off: ${error.message}`));
    };
    const cancel = () => {
      stop.abort(signal?.reason);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    let session: Session | undefined;
    try {
      session = await this.#sessions.session();
      const { client } = session;
      const options = { timeout: timeoutMs, signal: stop.signal };
      const result = await watchingResponses(broken, () =>
        callThrough(session?.lean, this.#listed(), client, params, options),
      );
      this.#scope.health.recovered();
      return result;
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      const fault = classifyFault(error, faultContext(this.#scope, 'tools/call'));
      if (fault.dropped && session !== undefined) this.#sessions.discard(session);
      throw atStage(fault.error, fault.delivered ? 'sent' : 'unsent');
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  /** A transient fault is (part of) an outage; any other answer means the upstream answers. */
  #report(error: ExtensionError): ExtensionError {
    if (error.category === 'transient') return this.#scope.health.failed(error);
    this.#scope.health.recovered();
    return error;
  }
}
