/** Each registered tool's gate, read once from its `Tool._meta`, and the names of the tools that are gated. */
import type { ToolInfo } from '@ext/core';
import { readToolGate, toolDigest, toolMetaOf, type ToolGate } from './logic.js';
import { CONFIRMATION_ID, type ConfirmationToolMeta } from './schema.js';

/** The gates of one server's tools. A tool's declaration is checked when it is first seen (registration). */
export interface ToolGates {
  /** The tool's declared gate, or `undefined` when it declares none. */
  of(tool: ToolInfo): ToolGate | undefined;
  /** The normalized `Tool._meta` entry the server publishes for `tool`; remembers a gated tool. */
  toolMeta(tool: ToolInfo): ConfirmationToolMeta | undefined;
  /** Whether `name` is a tool `tools/list` shows as requiring confirmation: the tools a grant may cover. */
  isGated(name: string): boolean;
  /** The definition digest of the gated tool `name` as last listed (CONF-21), which a grant binds to. */
  digestOf(name: string): string | undefined;
}

export function toolGates(): ToolGates {
  // `null`: read, and the tool declares nothing.
  const gates = new WeakMap<ToolInfo, ToolGate | null>();
  // A gated tool's name, and the digest of its definition as last listed.
  const gated = new Map<string, string>();
  const of = (tool: ToolInfo): ToolGate | undefined => {
    const cached = gates.get(tool);
    if (cached !== undefined) return cached ?? undefined;
    const gate = readToolGate(tool, CONFIRMATION_ID);
    gates.set(tool, gate ?? null);
    return gate;
  };
  return {
    of,
    toolMeta(tool) {
      const gate = of(tool);
      if (gate === undefined) return undefined;
      if (gate.requiresConfirmation) gated.set(tool.name, toolDigest(tool));
      return toolMetaOf(gate);
    },
    isGated: (name) => gated.has(name),
    digestOf: (name) => gated.get(name),
  };
}
