/**
 * Rendering helpers: one piece of data, rendered as structured JSON (with
 * the text copy MCP asks for), markdown or plain text at a verbosity. Pure
 * functions of the data and the presentation.
 */
import { isRecord } from '@ext/core/kit';
import { type ToolResult } from '@ext/core';
import { type CallPresentation, type PresentationFormat, type PresentationVerbosity } from './call-presentation.js';

/** A renderer from the data to text, at a verbosity. */
export type Renderer<T> = (data: T, verbosity: PresentationVerbosity) => string;

export interface RenderOptions<T extends Record<string, unknown>> {
  /** The result's data: `structuredContent` for JSON, the input of the text renderers otherwise. */
  readonly data: T;
  /** Markdown for people. Default: {@link genericMarkdown}. */
  readonly markdown?: Renderer<T> | undefined;
  /** Plain text. Default: {@link genericText}. */
  readonly text?: Renderer<T> | undefined;
}

/** What `format` renders into: the MIME type of the text produced. */
export const FORMAT_MIME_TYPES: Readonly<Record<PresentationFormat, string>> = {
  json: 'application/json',
  markdown: 'text/markdown',
  text: 'text/plain',
};

// How deep the generic renderers go before summarizing, by verbosity.
const DEPTH: Readonly<Record<PresentationVerbosity, number>> = { compact: 1, standard: 3, verbose: 32 };

function assertData(data: unknown): asserts data is Record<string, unknown> {
  if (!isRecord(data)) {
    throw new TypeError(
      'render: data must be a JSON object (it becomes structuredContent, which MCP defines as an object)',
    );
  }
}

/** The JSON text copy: compact at `compact` and `standard`, indented at `verbose`. */
export function jsonText(data: unknown, verbosity: PresentationVerbosity): string {
  return verbosity === 'verbose' ? JSON.stringify(data, null, 2) : JSON.stringify(data);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

function summary(value: unknown): string {
  if (Array.isArray(value)) return `(${value.length} item${value.length === 1 ? '' : 's'})`;
  if (isRecord(value)) {
    const count = Object.keys(value).length;
    return `(${count} field${count === 1 ? '' : 's'})`;
  }
  return scalar(value);
}

function isComposite(value: unknown): boolean {
  return Array.isArray(value) || isRecord(value);
}

// Keeps field values from breaking the markdown around them.
function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]#|<>])/g, '\\$1').replace(/\r?\n/g, ' ');
}

function lines(value: unknown, depth: number, maxDepth: number, markdown: boolean): string[] {
  const indent = '  '.repeat(depth);
  const bullet = markdown ? '- ' : '';
  const label = (key: string): string => (markdown ? `**${escapeMarkdown(key)}**` : key);
  const plain = (text: string): string => (markdown ? escapeMarkdown(text) : text.replace(/\r?\n/g, ' '));
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index + 1), item])
    : Object.entries(value as Record<string, unknown>);
  const out: string[] = [];
  for (const [key, item] of entries) {
    if (!isComposite(item)) {
      out.push(`${indent}${bullet}${label(key)}: ${plain(scalar(item))}`);
    } else if (depth + 1 >= maxDepth) {
      out.push(`${indent}${bullet}${label(key)}: ${summary(item)}`);
    } else {
      out.push(`${indent}${bullet}${label(key)}:`);
      out.push(...lines(item, depth + 1, maxDepth, markdown));
    }
  }
  return out;
}

/** A readable markdown list of any JSON object: deeper at higher verbosity, nested values summarized beyond. */
export function genericMarkdown(data: Record<string, unknown>, verbosity: PresentationVerbosity): string {
  return lines(data, 0, DEPTH[verbosity], true).join('\n');
}

/** The same as {@link genericMarkdown} without markdown syntax. */
export function genericText(data: Record<string, unknown>, verbosity: PresentationVerbosity): string {
  return lines(data, 0, DEPTH[verbosity], false).join('\n');
}

/** The text of `data` in the presentation's format. */
export function renderText<T extends Record<string, unknown>>(
  presentation: CallPresentation,
  options: RenderOptions<T>,
): string {
  assertData(options.data);
  switch (presentation.format) {
    case 'json':
      return jsonText(options.data, presentation.verbosity);
    case 'markdown':
      return (options.markdown ?? genericMarkdown)(options.data, presentation.verbosity);
    case 'text':
      return (options.text ?? genericText)(options.data, presentation.verbosity);
  }
}

/**
 * A tool result in the presentation's format (SPEC.md CN-10..CN-12):
 * `json` gives `structuredContent` plus its serialized text; `markdown` and
 * `text` give one text block, and keep `structuredContent` when the tool
 * declares an output schema (`structured`). Never `content: []`, never
 * `structuredContent: null`.
 */
export function renderResult<T extends Record<string, unknown>>(
  presentation: CallPresentation,
  options: RenderOptions<T>,
  structured: boolean,
): ToolResult {
  const text = renderText(presentation, options);
  const result: ToolResult = { content: [{ type: 'text', text }] };
  if (presentation.format === 'json' || structured) result.structuredContent = options.data;
  return result;
}

export interface ResourceRenderOptions<T extends Record<string, unknown>> extends RenderOptions<T> {
  readonly uri: string;
}

/** A `resources/read` result (one text item, MIME type by format), with the echo under `meta` when given. */
export function renderResource<T extends Record<string, unknown>>(
  presentation: CallPresentation,
  options: ResourceRenderOptions<T>,
): { contents: { uri: string; mimeType: string; text: string }[]; _meta?: Record<string, unknown> } {
  const contents = [
    { uri: options.uri, mimeType: FORMAT_MIME_TYPES[presentation.format], text: renderText(presentation, options) },
  ];
  return presentation.resultMeta === undefined ? { contents } : { contents, _meta: { ...presentation.resultMeta } };
}

export interface PromptRenderOptions<T extends Record<string, unknown>> extends RenderOptions<T> {
  readonly description?: string | undefined;
  /** Text placed before the rendered data, e.g. the instruction. */
  readonly preamble?: string | undefined;
}

/** A `prompts/get` result: one user message carrying the data in the presentation's format. */
export function renderPrompt<T extends Record<string, unknown>>(
  presentation: CallPresentation,
  options: PromptRenderOptions<T>,
): {
  description?: string;
  messages: { role: 'user'; content: { type: 'text'; text: string } }[];
  _meta?: Record<string, unknown>;
} {
  const body = renderText(presentation, options);
  const text = options.preamble === undefined ? body : `${options.preamble}\n\n${body}`;
  const result: {
    description?: string;
    messages: { role: 'user'; content: { type: 'text'; text: string } }[];
    _meta?: Record<string, unknown>;
  } = {
    messages: [{ role: 'user', content: { type: 'text', text } }],
  };
  if (options.description !== undefined) result.description = options.description;
  if (presentation.resultMeta !== undefined) result._meta = { ...presentation.resultMeta };
  return result;
}
