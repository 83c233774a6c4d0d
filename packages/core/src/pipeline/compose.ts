/**
 * Composition: the extension halves a server or client author lists, checked
 * and ordered once at startup, as the data an adapter serves (the pipeline,
 * the methods, the advertised capabilities, negotiation, the tools).
 */
import { ConfigurationError } from '../contract/errors.js';
import type { ClientExtension, ComposedClient } from '../contract/client-extension.js';
import type { ComposedMethod, ComposedServer, ServerExtension } from '../contract/extension.js';
import { validateHalves, type Maybe } from './halves.js';
import { answerMethodFailure } from '../telemetry/internal-errors.js';
import { consoleLogger, type Logger } from '../telemetry/logger.js';
import { negotiator } from '../negotiation/negotiation.js';
import { missingMandatory, runToolCall, unidentifiedCaller, type Pipeline } from './pipeline.js';
import { methodOutcome, toolCallOutcome } from '../telemetry/semconv.js';
import { inPipelineOrder, stageLabel } from './stage-placement.js';
import { observeOperation, type ServerOperation } from '../telemetry/telemetry-server.js';
import { toolRegistry } from './tool-registry.js';

export interface ComposeOptions {
  /** Where ignored settings and similar are reported. Default: stderr. */
  readonly logger?: Logger | undefined;
  /** Reserved-prefix identifiers an extension may serve anyway (content-negotiation's draft alias). */
  readonly allowReservedIds?: readonly string[] | undefined;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api`, when the
   * application installed it and registered an SDK. Default `true`; `false`
   * turns them off for this composition.
   */
  readonly telemetry?: boolean | undefined;
}

/** `capabilities.extensions` to advertise: each half's settings under each of its identifiers (an alias's own, CORE-5). */
function advertised(halves: readonly (ServerExtension | ClientExtension)[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const half of halves) for (const id of half.ids) out[id] = { ...(half.aliasSettings?.[id] ?? half.settings) };
  return out;
}

/** Every `<id>/<verb>` and named method the halves serve; throws `DUPLICATE_METHOD` for one registered twice. */
function methodTable(halves: readonly ServerExtension[]): ComposedMethod[] {
  const methods: ComposedMethod[] = [];
  const add = (entry: ComposedMethod): void => {
    if (methods.some((other) => other.method === entry.method)) {
      throw new ConfigurationError('DUPLICATE_METHOD', `${entry.method} is registered twice`);
    }
    methods.push(entry);
  };
  for (const half of halves) {
    for (const [verb, handler] of Object.entries(half.methods ?? {})) {
      for (const id of half.ids) {
        // An official identifier's methods are the ones its specification names (namedMethods).
        if (half.reservedAliases?.includes(id) === true) continue;
        add({ method: `${id}/${verb}`, extension: half.name, id, handler });
      }
    }
    const [id] = half.ids;
    const legacy = half.namedMethodsOnLegacy === true ? { legacy: true } : {};
    for (const [method, handler] of Object.entries(half.namedMethods ?? {})) {
      if (id !== undefined) add({ method, extension: half.name, id, handler, named: true, ...legacy });
    }
  }
  return methods;
}

/** The middlewares of halves in pipeline order, outermost first, with their stage and package. */
function pipelineOf(ordered: readonly ServerExtension[], callerState: readonly string[]): Pipeline {
  const stages = ordered.flatMap((half) =>
    half.middleware && half.stage !== undefined
      ? [{ stage: stageLabel(half.stage), extension: half.name, middleware: half.middleware }]
      : [],
  );
  return { halves: ordered, stages, callerState };
}

/** The pipeline as text, one stage a line, the tool handler last. */
function describePipeline(pipeline: ComposedServer['pipeline']): string {
  const lines = pipeline.map(
    (entry, index) => `${String(index + 1).padStart(2)}. ${entry.stage.padEnd(20)} ${entry.extension}`,
  );
  lines.push(`${String(pipeline.length + 1).padStart(2)}. ${'tool handler'.padEnd(20)}`);
  return lines.join('\n');
}

/**
 * Composes server extension halves. Ignores `false`/`null`/`undefined`
 * entries (`flag && errorsServer()`), refuses duplicates and missing
 * dependencies, and orders middlewares by their placement (CORE-50).
 */
export function composeServer(input: readonly Maybe<ServerExtension>[], options: ComposeOptions = {}): ComposedServer {
  const logger = options.logger ?? consoleLogger;
  const telemetry = options.telemetry !== false;
  const ordered = inPipelineOrder(validateHalves(input, 'server', options.allowReservedIds ?? []));
  const methods = methodTable(ordered);
  const callerState = ordered.filter((half) => half.keepsCallerState === true).map((half) => half.name);
  const assertCallerKnown: ComposedServer['assertCallerKnown'] = (ctx) => {
    if (ctx.identity === undefined && callerState.length > 0) throw unidentifiedCaller(callerState);
  };
  const parts = pipelineOf(ordered, callerState);
  const pipeline = parts.stages.map(({ stage, extension }) => ({ stage, extension }));

  return {
    extensions: ordered,
    pipeline,
    logger,
    telemetry,
    methods,
    callerState,
    assertCallerKnown,
    ...toolRegistry(ordered, logger),
    capabilities: () => advertised(ordered),
    negotiate: negotiator(ordered, logger),
    missingMandatory(isNegotiated, peerKnown) {
      return missingMandatory(ordered, (half) => isNegotiated(half.name), peerKnown);
    },
    runToolCall(call, ctx, handler, validate) {
      const run = (operation: ServerOperation | undefined) =>
        runToolCall(parts, call, ctx, handler, validate, operation);
      if (!telemetry) return run(undefined);
      return observeOperation({ method: 'tools/call', tool: call.name, meta: call.meta, ctx }, run, toolCallOutcome);
    },
    runMethod(method, params, ctx, handler) {
      const run = async (): Promise<Record<string, unknown>> => {
        try {
          assertCallerKnown(ctx);
          return await handler(params, ctx);
        } catch (error) {
          throw answerMethodFailure(error, method, ctx);
        }
      };
      if (!telemetry) return run();
      return observeOperation({ method, meta: params._meta, ctx }, run, (_result, error) => methodOutcome(error));
    },
    describe: () => describePipeline(pipeline),
  };
}

/** Composes client extension halves (same rules as {@link composeServer}). */
export function composeClient(input: readonly Maybe<ClientExtension>[], options: ComposeOptions = {}): ComposedClient {
  const logger = options.logger ?? consoleLogger;
  const halves = validateHalves(input, 'client', options.allowReservedIds ?? []);
  return {
    extensions: halves,
    logger,
    telemetry: options.telemetry !== false,
    capabilities: () => advertised(halves),
    negotiate: negotiator(halves, logger),
  };
}
