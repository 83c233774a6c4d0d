/**
 * The tools a composed server serves: recorded as adapters register them,
 * interned so a server built per request hands extensions the same
 * `ToolInfo`, and decorated with every extension's `_meta` and annotations.
 */
import { jsonEqual } from '../kit/canonical.js';
import type { ComposedServer, ServerExtension } from '../contract/extension.js';
import type { Logger } from '../telemetry/logger.js';
import type { ToolInfo } from '../contract/types.js';

interface ToolDecoration {
  readonly _meta: Record<string, unknown>;
  readonly annotations: Record<string, unknown> | undefined;
  /** Absent when no extension adds a top-level member (the decoration then reads as before `toolFields`). */
  readonly fields?: Record<string, unknown> | undefined;
}

/** The members of a composed server that keep its tools. */
export type ToolRegistry = Pick<
  ComposedServer,
  'tools' | 'internTool' | 'recordTool' | 'onToolRecorded' | 'decorateTool'
>;

/**
 * Same registration as far as any extension can tell: every field it may
 * read holds the same JSON data (a server built per request often writes its
 * tool's `_meta` as a literal, a new object each time with the same content).
 */
function sameTool(a: ToolInfo, b: ToolInfo): boolean {
  return (
    a.title === b.title &&
    a.description === b.description &&
    jsonEqual(a.annotations, b.annotations) &&
    jsonEqual(a._meta, b._meta) &&
    jsonEqual(a.inputJsonSchema, b.inputJsonSchema) &&
    jsonEqual(a.outputJsonSchema, b.outputJsonSchema)
  );
}

/** Every extension's contribution to a tool's `_meta`, annotations and top-level fields, in pipeline order. */
function decorate(halves: readonly ServerExtension[], tool: ToolInfo): ToolDecoration {
  const meta: Record<string, unknown> = { ...(tool._meta ?? {}) };
  let annotations: Record<string, unknown> | undefined = tool.annotations ? { ...tool.annotations } : undefined;
  let fields: Record<string, unknown> | undefined;
  for (const half of halves) {
    const contribution = half.toolMeta?.(tool);
    if (contribution !== undefined) for (const id of half.ids) meta[id] = contribution;
    const extra = half.toolAnnotations?.(tool);
    if (extra !== undefined) annotations = { ...(annotations ?? {}), ...extra };
    const added = half.toolFields?.(tool);
    if (added !== undefined) fields = { ...(fields ?? {}), ...added };
  }
  return fields === undefined ? { _meta: meta, annotations } : { _meta: meta, annotations, fields };
}

/** A copy the caller may change without touching the decoration kept. */
function copied(decoration: ToolDecoration): ToolDecoration {
  const copy: ToolDecoration = {
    _meta: { ...decoration._meta },
    annotations: decoration.annotations === undefined ? undefined : { ...decoration.annotations },
  };
  return decoration.fields === undefined ? copy : { ...copy, fields: { ...decoration.fields } };
}

/** The tool registry of a composition of `halves` (in pipeline order). */
export function toolRegistry(halves: readonly ServerExtension[], logger: Logger): ToolRegistry {
  const tools = new Map<string, ToolInfo>();
  const toolListeners = new Set<(tool: ToolInfo) => void>();
  const decorations = new Map<string, ToolDecoration & { readonly tool: ToolInfo }>();
  return {
    tools,
    internTool(tool) {
      const known = tools.get(tool.name);
      return known !== undefined && sameTool(known, tool) ? known : tool;
    },
    recordTool(tool) {
      if (tools.get(tool.name) === tool) return;
      tools.set(tool.name, tool);
      for (const listener of [...toolListeners]) {
        try {
          listener(tool);
        } catch (error) {
          // One observer's failure must not break tool registration.
          logger.warn('a tool-recorded listener threw; it is skipped', { tool: tool.name, error: String(error) });
        }
      }
    },
    onToolRecorded(listener) {
      toolListeners.add(listener);
      return () => {
        toolListeners.delete(listener);
      };
    },
    decorateTool(tool) {
      // The 2026-07-28 era registers every tool again for each request's
      // server: when nothing the extensions read has changed (same objects),
      // reuse the last decoration instead of asking every extension again.
      const last = decorations.get(tool.name);
      if (last !== undefined && sameTool(last.tool, tool)) return copied(last);
      const decoration = decorate(halves, tool);
      decorations.set(tool.name, { tool, ...decoration });
      return copied(decoration);
    },
  };
}
