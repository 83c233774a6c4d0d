/**
 * Each tool call timed and told to the recorder: the composition's
 * `runToolCall` (the whole pipeline, as the adapters run it) wrapped, and
 * the tool handler inside it (the call upstream) timed on its own, so the
 * time the gateway adds is the call's duration less the upstream's.
 */
import type { ComposedServer, ToolHandler } from '@ext/core';
import type { GatewayTool } from '../gateway-tool.js';
import { OTHER, reportedError, resultEnd, thrownEnd, upstreamErrorType, type CallEnd } from './outcome.js';
import type { GatewayRecorder } from './recorder.js';

export interface CallObservation {
  readonly recorder: GatewayRecorder;
  /** The tool offered under `name` now, if any: a name the gateway does not offer is labelled `_OTHER`. */
  readonly toolOf: (name: string) => Pick<GatewayTool, 'upstream'> | undefined;
  /** A monotonic clock in milliseconds. Default `performance.now`. */
  readonly now?: (() => number) | undefined;
}

interface Labels {
  readonly upstream: string;
  readonly tool: string;
}

/** Tells the recorder how a call ended, and what refusal or confirmation it was. */
function finish(recorder: GatewayRecorder, labels: Labels, end: CallEnd, seconds: number, upstreamSeconds: number) {
  const { outcome, category, errorType } = end;
  recorder.callFinished({
    ...labels,
    outcome,
    category,
    errorType,
    gatewaySeconds: Math.max(0, seconds - upstreamSeconds),
    upstreamSeconds,
  });
  if (end.limit !== undefined) recorder.refused(end.limit, labels);
  if (end.confirmation === 'requested') recorder.confirmationRequested(labels.tool);
  else if (end.confirmation !== undefined) recorder.confirmationDecided(labels.tool, end.confirmation);
}

/** `handler` timed: each call upstream told to the recorder and added to `spent`. */
function timedHandler(
  handler: ToolHandler,
  labels: Labels,
  spent: { seconds: number },
  observation: CallObservation,
): ToolHandler {
  const now = observation.now ?? (() => performance.now());
  return async (args, ctx) => {
    const started = now();
    const answered = (result: unknown, thrown: unknown) => {
      const seconds = (now() - started) / 1000;
      spent.seconds += seconds;
      observation.recorder.upstreamAnswered({ ...labels, seconds, errorType: upstreamErrorType(result, thrown) });
    };
    try {
      const result = await handler(args, ctx);
      answered(result, undefined);
      return result;
    } catch (error) {
      answered(undefined, error ?? new Error('undefined thrown'));
      throw error;
    }
  };
}

/** `composed`, each tool call it runs observed. */
export function observeCalls(composed: ComposedServer, observation: CallObservation): ComposedServer {
  const now = observation.now ?? (() => performance.now());
  return {
    ...composed,
    runToolCall: async (call, ctx, handler, validate) => {
      const started = now();
      const offered = observation.toolOf(call.name);
      const labels: Labels =
        offered === undefined ? { upstream: '', tool: OTHER } : { upstream: offered.upstream, tool: call.name };
      const spent = { seconds: 0 };
      const timed = timedHandler(handler, labels, spent, observation);
      const done = (end: CallEnd) => {
        finish(observation.recorder, labels, end, (now() - started) / 1000, spent.seconds);
      };
      try {
        const result = await composed.runToolCall(call, ctx, timed, validate);
        done(resultEnd(result, reportedError(ctx)));
        return result;
      } catch (error) {
        done(thrownEnd(error, reportedError(ctx)));
        throw error;
      }
    },
  };
}
