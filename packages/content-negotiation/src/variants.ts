/**
 * SEP-3279 result variants over this package's model: the variants a tool
 * declares (derived from what it already declares), the check of a call's
 * `requestedOutputs`, and each requested output rendered from the same data
 * and renderers as the rest of the result (SPEC.md CN-19..CN-24). Pure
 * functions of what arrived and what the handler rendered.
 */
import type { ToolInfo, ToolResult } from '@ext/core';
import { mergeFeatures, type FeatureTag } from './grammar.js';
import { choosePresentation, type PresentationDefaults } from './presentation.js';
import { renderText, type RenderOptions } from './render.js';
import {
  CORE_AUDIENCES,
  VARIANT_FORMATS,
  type OutputSelector,
  type OutputVariant,
  type ToolResultOutput,
} from './variants-schema.js';
import { type CallPresentation } from './call-presentation.js';

/**
 * The variants a tool lists in `Tool.outputVariants` (CN-19): the content
 * variants for the assistant and the user, which every tool can give (its
 * text, rendered per audience), and, when it declares an output schema, the
 * structured variant of every core audience with that schema.
 */
export function declaredVariants(tool: Pick<ToolInfo, 'outputJsonSchema'>): OutputVariant[] {
  const variants: OutputVariant[] = [
    { audience: 'assistant', format: 'content' },
    { audience: 'user', format: 'content' },
  ];
  const schema = tool.outputJsonSchema;
  if (schema !== undefined) {
    for (const audience of CORE_AUDIENCES) variants.push({ audience, format: 'structured', schema: { ...schema } });
  }
  return variants;
}

/** The outcome of checking `params.requestedOutputs`: the selectors, or where and why it is invalid. */
export type SelectionCheck =
  | { readonly ok: true; readonly selectors: readonly OutputSelector[] }
  | { readonly ok: false; readonly pointer: string; readonly reason: string };

const key = (selector: { audience: string; format: string }): string => `${selector.audience}/${selector.format}`;

function selectorOf(raw: unknown): OutputSelector | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const { audience, format } = raw as Record<string, unknown>;
  if (typeof audience !== 'string' || audience === '') return undefined;
  if (!(VARIANT_FORMATS as readonly unknown[]).includes(format)) return undefined;
  return { audience, format: format as OutputSelector['format'] };
}

/**
 * `params.requestedOutputs` checked against the tool's declared variants
 * (CN-21): an array of distinct `{audience, format}` selectors, each one
 * the tool declares. Nothing is ever substituted for an undeclared one.
 */
export function checkRequestedOutputs(raw: unknown, declared: readonly OutputVariant[]): SelectionCheck {
  const pointer = '/requestedOutputs';
  if (!Array.isArray(raw)) return { ok: false, pointer, reason: 'must be an array of {audience, format} selectors' };
  if (raw.length === 0) {
    return { ok: false, pointer, reason: 'must select at least one output (omit it for the legacy result alone)' };
  }
  const offered = new Set(declared.map(key));
  const seen = new Set<string>();
  const selectors: OutputSelector[] = [];
  for (const [index, item] of raw.entries()) {
    const at = `${pointer}/${index}`;
    const selector = selectorOf(item);
    if (selector === undefined) {
      return {
        ok: false,
        pointer: at,
        reason: 'must be an object with an "audience" and a "format" of content or structured',
      };
    }
    const name = key(selector);
    if (seen.has(name)) return { ok: false, pointer: at, reason: `repeats ${name}` };
    if (!offered.has(name)) {
      return {
        ok: false,
        pointer: at,
        reason: `${name} is not a variant the tool declares (${[...offered].join(', ')})`,
      };
    }
    seen.add(name);
    selectors.push(selector);
  }
  return { ok: true, selectors };
}

/**
 * The presentation of a content output for `audience` (CN-22): the call's
 * features with the `agent` / `human` dimension replaced by the audience
 * (`assistant` reads as `agent`, `user` as `human`), then CN-8.
 */
export function audiencePresentation(
  features: readonly FeatureTag[],
  audience: string,
  defaults: PresentationDefaults,
): CallPresentation {
  const reader: FeatureTag = { name: audience === 'user' ? 'human' : 'agent', op: 'present' };
  const { format, verbosity } = choosePresentation(mergeFeatures(features, [reader]), defaults);
  return { format, verbosity };
}

/** What the outputs of one call are made from. */
export interface OutputSource {
  /** The handler's result, after every later stage. */
  readonly result: ToolResult;
  /** What the handler gave `render`, when it used it: outputs are rendered from it again. */
  readonly rendered: RenderOptions<Record<string, unknown>> | undefined;
  /** The call's features in force (empty when the extension is not negotiated). */
  readonly features: readonly FeatureTag[];
  readonly defaults: PresentationDefaults;
}

/**
 * One requested output (CN-22, CN-23), or `undefined` when the result has
 * nothing for it (a structured output of a failure that carries no
 * structured error).
 */
export function outputFor(selector: OutputSelector, source: OutputSource): ToolResultOutput | undefined {
  const { result, rendered } = source;
  // A failure is never re-rendered: its own content and structured error are what every audience gets.
  const fromRender = rendered !== undefined && result.isError !== true;
  if (selector.format === 'structured') {
    const data: unknown = fromRender ? rendered.data : result.structuredContent;
    return data === undefined ? undefined : { ...selector, format: 'structured', structuredContent: data };
  }
  const content = fromRender
    ? [
        {
          type: 'text',
          text: renderText(audiencePresentation(source.features, selector.audience, source.defaults), rendered),
        },
      ]
    : result.content.map((block) => ({ ...block }));
  return { ...selector, format: 'content', content };
}

/** The outputs for every selector, in the order requested. */
export function outputsFor(selectors: readonly OutputSelector[], source: OutputSource): ToolResultOutput[] {
  return selectors.flatMap((selector) => outputFor(selector, source) ?? []);
}
