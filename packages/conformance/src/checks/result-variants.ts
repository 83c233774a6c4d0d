/**
 * The content-negotiation checks of SEP-3279 result variants (draft): what
 * a server that lists `Tool.outputVariants` must answer to a client that
 * speaks only the draft (`params.requestedOutputs`, `result.outputs`).
 */
import { isRecord } from '@ext/core/kit';
import { WireError } from '@ext/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CheckFailure, describe, ensure } from '../assert.js';
import type { Probe } from '../probe.js';
import { safeTools } from '../tools.js';
import type { Check, CheckContext, ListedTool } from '../types.js';

interface Variant {
  readonly audience: string;
  readonly format: string;
  readonly schema?: unknown;
}

const FORMATS = ['content', 'structured'];
// The core audience and format pairs the draft permits (its "Result format" table).
const CORE_PAIRS = [
  'assistant/content',
  'assistant/structured',
  'user/content',
  'user/structured',
  'programmatic/structured',
];
const pairOf = (variant: { readonly audience?: unknown; readonly format?: unknown }): string =>
  `${String(variant.audience)}/${String(variant.format)}`;

/** `tools/list` exactly as the server sent it (the SDK client drops members it does not know). */
async function rawTools(probe: Probe): Promise<Record<string, unknown>[]> {
  const listed = await probe.rawRequest('tools/list', {});
  return Array.isArray(listed.tools) ? listed.tools.filter(isRecord) : [];
}

/** The tools that list `outputVariants`, or the check is skipped. */
async function toolsWithVariants(ctx: CheckContext, probe: Probe): Promise<Record<string, unknown>[]> {
  const tools = (await rawTools(probe)).filter((tool) => 'outputVariants' in tool);
  return tools.length > 0 ? tools : ctx.skip('no tool lists outputVariants (SEP-3279 result variants not served)');
}

/** Why a tool's `outputVariants` breaks the draft, or `undefined`. */
function variantsProblem(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return `is ${describe(raw)}, not an array`;
  const seen = new Set<string>();
  for (const variant of raw) {
    if (!isRecord(variant) || typeof variant.audience !== 'string' || !FORMATS.includes(String(variant.format)))
      return `has ${describe(variant)}, not an {audience, format} variant`;
    const pair = pairOf(variant);
    if (seen.has(pair)) return `lists ${pair} twice`;
    seen.add(pair);
    if (!variant.audience.includes('/') && !CORE_PAIRS.includes(pair)) return `lists ${pair}, not a core combination`;
    if (variant.schema !== undefined && (variant.format !== 'structured' || !isRecord(variant.schema)))
      return `gives ${pair} a schema ${describe(variant.schema)}`;
  }
  return seen.has('assistant/content') ? undefined : 'lacks the assistant/content variant every tool must declare';
}

/** A read-only tool that lists variants and whose arguments the kit can build, with its core variants. */
function callableTool(
  ctx: CheckContext,
  tools: readonly Record<string, unknown>[],
): { tool: ListedTool; args: Record<string, unknown>; variants: Variant[] } {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const { tool, args } of safeTools(ctx.server.tools)) {
    const listed = byName.get(tool.name)?.outputVariants;
    if (!Array.isArray(listed) || variantsProblem(listed) !== undefined) continue;
    const variants = (listed as Variant[]).filter((variant) => CORE_PAIRS.includes(pairOf(variant)));
    return { tool, args, variants };
  }
  return ctx.skip('no read-only tool with valid outputVariants whose arguments the kit can build');
}

/** Why `output` is not the one `selector` asked for, or `undefined`. */
function outputProblem(output: unknown, selector: Variant, ajv: Ajv2020): string | undefined {
  if (!isRecord(output) || pairOf(output) !== pairOf(selector))
    return `${describe(output)} where ${pairOf(selector)} was asked`;
  if (selector.format === 'content') {
    const blocks = output.content;
    return Array.isArray(blocks) && blocks.every((block) => isRecord(block) && typeof block.type === 'string')
      ? undefined
      : `${pairOf(selector)} has content ${describe(blocks)}`;
  }
  if (!('structuredContent' in output)) return `${pairOf(selector)} has no structuredContent`;
  if (isRecord(selector.schema) && !ajv.validate(selector.schema, output.structuredContent))
    return `${pairOf(selector)} is not valid against its declared schema: ${ajv.errorsText()}`;
  return undefined;
}

/** The checks SEP-3279 adds to the content-negotiation suite (SPEC CN-19..CN-22). */
export const resultVariantChecks: readonly Check[] = [
  {
    id: 'content-negotiation/variants-declared',
    requirement: 'CN-19',
    level: 'MUST',
    title: 'a listed outputVariants is an array of distinct draft variants that includes assistant/content',
    async run(ctx) {
      const probe = await ctx.connect({});
      for (const tool of await toolsWithVariants(ctx, probe)) {
        const problem = variantsProblem(tool.outputVariants);
        ensure(problem === undefined, `${String(tool.name)}: outputVariants ${problem ?? ''}`);
      }
    },
  },
  {
    id: 'content-negotiation/variants-outputs',
    requirement: 'CN-22',
    level: 'MUST',
    title: 'requestedOutputs is answered with exactly the outputs requested, in order, each valid for its variant',
    async run(ctx) {
      const probe = await ctx.connect({});
      const { tool, args, variants } = callableTool(ctx, await toolsWithVariants(ctx, probe));
      const selectors = [...variants].reverse();
      const requestedOutputs = selectors.map(({ audience, format }) => ({ audience, format }));
      const result = await probe.rawRequest('tools/call', { name: tool.name, arguments: args, requestedOutputs });
      if (result.isError === true) return ctx.skip(`${tool.name} failed with sample arguments`);
      const outputs = result.outputs;
      ensure(Array.isArray(outputs), `${tool.name}: outputs is ${describe(outputs)}`);
      ensure(
        outputs.length === selectors.length,
        `${tool.name}: ${String(outputs.length)} outputs for ${String(selectors.length)} selectors: ${describe((outputs as unknown[]).map((output) => (isRecord(output) ? pairOf(output) : output)))}`,
      );
      const ajv = new Ajv2020({ strict: false });
      selectors.forEach((selector, index) => {
        const problem = outputProblem(outputs[index], selector, ajv);
        ensure(problem === undefined, `${tool.name}: output ${String(index)}: ${problem ?? ''}`);
      });
    },
  },
  {
    id: 'content-negotiation/variants-undeclared-refused',
    requirement: 'CN-21',
    level: 'MUST',
    title:
      'a requestedOutputs selector the tool does not declare is refused with -32602 and a structured error, never substituted',
    async run(ctx) {
      const probe = await ctx.connect({});
      // A read-only tool with valid arguments: a server that wrongly runs it changes nothing.
      const { tool, args } = callableTool(ctx, await toolsWithVariants(ctx, probe));
      const requestedOutputs = [{ audience: 'io.github.mcp-ext/never-negotiated', format: 'structured' }];
      let answer: Record<string, unknown>;
      try {
        answer = await probe.rawRequest('tools/call', { name: tool.name, arguments: args, requestedOutputs });
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
        ensure(error.code === -32602, `JSON-RPC code ${String(error.code)}, expected -32602`);
        ctx.expectSeedShape(error.data, 'error', undefined, 'the error data of the refusal');
        return;
      }
      throw new CheckFailure(`an undeclared selector was answered: ${describe(answer.outputs ?? answer)}`);
    },
  },
];
