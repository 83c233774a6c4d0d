/**
 * The multi-round-trip fixtures of the official suite's 2026-07-28 line
 * (SEP-2322, `input-required-result-*`): tools, and one prompt, that answer
 * `resultType: "input_required"` with embedded elicitation, sampling and
 * roots requests until the client retries with the answers. The tools run
 * through the extension pipeline; the answers and the echoed `requestState`
 * are read from the SDK's request context, which lifts them out of the params.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, WireError, type CallContext, type ExtendedServer, type ToolResult } from '@ext/core';
import { isRecord } from '@ext/core/kit';
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { text } from './media.js';

/** One key for the whole process: every per-request server instance must verify what another minted. */
const stateCodec = createRequestStateCodec<{ readonly round: number }>({ key: randomBytes(32) });

/** A one-field form elicitation. */
const ask = (message: string, field: string, type: 'string' | 'boolean' = 'string'): InputRequest =>
  inputRequired.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: { [field]: type === 'string' ? { type: 'string' } : { type: 'boolean' } },
      required: [field],
    },
  });

const sample = (prompt: string, maxTokens: number): InputRequest =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens });

/** The pipeline's result type is the tool result; the SDK sends an input-required result as it is. */
const asToolResult = (result: InputRequiredResult): ToolResult => result as unknown as ToolResult;

function sdkOf(ctx: CallContext): ServerContext {
  return ctx.sdkContext as ServerContext;
}

/** What the retried request answered under `key`, as the SDK reads it. */
function answerOf(sdk: ServerContext, key: string) {
  return inputResponse(sdk.mcpReq.inputResponses, key);
}

/** The echoed `requestState`, verified: a tampered, expired or foreign one is refused as invalid params. */
async function verifiedRound(sdk: ServerContext): Promise<number | undefined> {
  // No verify hook is configured on the server, so the accessor gives the wire string (the SDK refuses any other type).
  const state = sdk.mcpReq.requestState<string>();
  if (state === undefined) return undefined;
  try {
    return (await stateCodec.verify(state, sdk)).round;
  } catch {
    throw new WireError(ErrorCodes.InvalidParams, 'requestState failed its integrity check', {
      pointer: '/params/requestState',
    });
  }
}

/** Registers the SEP-2322 tools and prompt. */
export function registerInputRequiredFixtures(server: McpServer, extended: ExtendedServer): void {
  registerSingleRequestTools(extended);
  registerStatefulTools(extended);
  registerInputRequiredPrompt(server);
}

/** One question each: a name (elicitation), a capital (sampling), the client's roots. */
function registerSingleRequestTools(extended: ExtendedServer): void {
  extended.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks for a name through an input_required result, then greets.' },
    (_args, ctx) => {
      const answer = answerOf(sdkOf(ctx), 'user_name');
      if (answer.kind !== 'elicit' || answer.action !== 'accept' || typeof answer.content?.name !== 'string')
        return asToolResult(inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } }));
      return text(`Hello, ${answer.content.name}!`);
    },
  );
  extended.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks the client to sample an answer through an input_required result.' },
    (_args, ctx) => {
      const answer = answerOf(sdkOf(ctx), 'capital_question');
      if (answer.kind !== 'sampling')
        return asToolResult(
          inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?', 100) } }),
        );
      const content = Array.isArray(answer.result.content) ? answer.result.content[0] : answer.result.content;
      return text(`Sampled: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`);
    },
  );
  extended.registerTool(
    'test_input_required_result_list_roots',
    { description: "Asks for the client's roots through an input_required result." },
    (_args, ctx) => {
      const answer = answerOf(sdkOf(ctx), 'client_roots');
      if (answer.kind !== 'roots')
        return asToolResult(inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } }));
      return text(`Roots: ${answer.roots.map((root) => root.uri).join(', ')}`);
    },
  );
  extended.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for the kinds of input the client declared it can give.' },
    (_args, ctx) => {
      const sdk = sdkOf(ctx);
      const envelope: Record<string, unknown> = sdk.mcpReq.envelope ?? {};
      const declared = isRecord(envelope[CLIENT_CAPABILITIES_META_KEY]) ? envelope[CLIENT_CAPABILITIES_META_KEY] : {};
      const requests: Record<string, InputRequest> = {};
      if (declared.elicitation !== undefined) requests.user_name = ask('What is your name?', 'name');
      if (declared.sampling !== undefined) requests.greeting = sample('Generate a greeting', 50);
      if (declared.roots !== undefined) requests.client_roots = inputRequired.listRoots();
      const answered = Object.keys(requests).every((key) => answerOf(sdk, key).kind !== 'missing');
      if (Object.keys(requests).length === 0) return text('The client declared no way to give input');
      return answered
        ? text('Every declared kind of input answered')
        : asToolResult(inputRequired({ inputRequests: requests }));
    },
  );
}

/** Tools whose rounds are bound by a signed `requestState`: one round, three kinds at once, two rounds, tampering. */
function registerStatefulTools(extended: ExtendedServer): void {
  const confirmTool = (name: string, description: string) =>
    extended.registerTool(name, { description }, async (_args, ctx) => {
      const sdk = sdkOf(ctx);
      const round = await verifiedRound(sdk);
      const answer = answerOf(sdk, 'confirm');
      if (round === 1 && answer.kind === 'elicit' && answer.action === 'accept') return text('state-ok: confirmed');
      const requestState = await stateCodec.mint({ round: 1 });
      return asToolResult(
        inputRequired({ inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') }, requestState }),
      );
    });
  confirmTool('test_input_required_result_request_state', 'Asks for confirmation with a signed requestState.');
  confirmTool('test_input_required_result_tampered_state', 'Refuses a requestState that fails its integrity check.');

  extended.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a sampled greeting and the roots in one input_required result.' },
    async (_args, ctx) => {
      const sdk = sdkOf(ctx);
      const round = await verifiedRound(sdk);
      const keys = ['user_name', 'greeting', 'client_roots'];
      if (round === 1 && keys.every((key) => answerOf(sdk, key).kind !== 'missing'))
        return text('Received the name, the greeting and the roots');
      const inputRequests = {
        user_name: ask('What is your name?', 'name'),
        greeting: sample('Generate a greeting', 50),
        client_roots: inputRequired.listRoots(),
      };
      return asToolResult(inputRequired({ inputRequests, requestState: await stateCodec.mint({ round: 1 }) }));
    },
  );

  extended.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks for a name, then a colour, each round with a new requestState.' },
    async (_args, ctx) => {
      const sdk = sdkOf(ctx);
      const round = await verifiedRound(sdk);
      if (round === 2 && answerOf(sdk, 'step2').kind === 'elicit') return text('Both steps answered');
      if (round === 1 && answerOf(sdk, 'step1').kind === 'elicit') {
        const step2 = ask('Step 2: What is your favorite color?', 'color');
        return asToolResult(
          inputRequired({ inputRequests: { step2 }, requestState: await stateCodec.mint({ round: 2 }) }),
        );
      }
      const step1 = ask('Step 1: What is your name?', 'name');
      return asToolResult(
        inputRequired({ inputRequests: { step1 }, requestState: await stateCodec.mint({ round: 1 }) }),
      );
    },
  );
}

/** `prompts/get` asks too: the prompt's context comes from an elicitation. */
function registerInputRequiredPrompt(server: McpServer): void {
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt whose context is asked of the user first.' },
    (ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user_context');
      if (answer.kind !== 'elicit' || answer.action !== 'accept' || typeof answer.content?.context !== 'string')
        return inputRequired({
          inputRequests: { user_context: ask('What context should the prompt use?', 'context') },
        });
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.content.context}` } }],
      };
    },
  );
}
