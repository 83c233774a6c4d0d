/** reviewTool: judging against a pin source and pinning as the judgement says, races included. */
import { MemoryStore } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { definitionDigest, type ToolDefinition } from './definition.js';
import { toolChangedError, TOOL_DEFINITION_CHANGED } from './errors.js';
import type { PinSource } from './pin-source.js';
import { PinStore } from './pin-store.js';
import { ACCEPTED_BY_POLICY, reviewTool } from './review.js';

const FIRST: ToolDefinition = { name: 'echo', description: 'Says the text back.', inputSchema: { type: 'object' } };
const SECOND: ToolDefinition = { ...FIRST, description: 'Says the text back, louder.' };

describe('reviewTool', () => {
  it('pins a new tool, then serves it as pinned', async () => {
    const pins = new PinStore(new MemoryStore());
    expect(await reviewTool(pins, 'api', FIRST, 'block')).toMatchObject({ status: 'new', serve: true });
    expect((await pins.pinned('api', 'echo'))?.digest).toBe(definitionDigest(FIRST));
    expect(await reviewTool(pins, 'api', FIRST, 'block')).toMatchObject({ status: 'pinned', serve: true });
  });

  it('judges a new tool against the pin another instance wrote first', async () => {
    const store = new MemoryStore();
    const pins = new PinStore(store);
    // Another instance pins SECOND between this one's read and its pinIfAbsent.
    const racing: PinSource = {
      reviewed: false,
      location: pins.location,
      pinned: async () => {
        await new PinStore(store).pinIfAbsent('api', 'echo', SECOND);
        return undefined;
      },
      pinIfAbsent: (upstream, tool, definition) => pins.pinIfAbsent(upstream, tool, definition),
      accept: (upstream, tool, definition, by) => pins.accept(upstream, tool, definition, by),
    };
    expect(await reviewTool(racing, 'api', FIRST, 'block')).toEqual({
      status: 'changed',
      changes: ['description'],
      serve: false,
      repin: false,
    });
    expect((await pins.pinned('api', 'echo'))?.digest).toBe(definitionDigest(SECOND));
  });

  it('blocks or warns about a changed tool without repinning; accept repins it, naming the policy', async () => {
    const pins = new PinStore(new MemoryStore());
    await pins.pinIfAbsent('api', 'echo', FIRST);
    expect(await reviewTool(pins, 'api', SECOND, 'block')).toMatchObject({ status: 'changed', serve: false });
    expect(await reviewTool(pins, 'api', SECOND, 'warn')).toMatchObject({ status: 'changed', serve: true });
    expect((await pins.pinned('api', 'echo'))?.digest).toBe(definitionDigest(FIRST));
    expect(await reviewTool(pins, 'api', SECOND, 'accept')).toMatchObject({ status: 'changed', repin: true });
    expect(await pins.pinned('api', 'echo')).toMatchObject({
      digest: definitionDigest(SECOND),
      acceptedBy: ACCEPTED_BY_POLICY,
    });
    expect(await reviewTool(pins, 'api', SECOND, 'block')).toMatchObject({ status: 'pinned', serve: true });
  });
});

describe('toolChangedError', () => {
  it('is a permanent structured error naming the tool, what changed, and how to accept it', () => {
    const structured = toolChangedError('fs__read_file', ['description', 'inputSchema.properties.path']).toStructured();
    expect(structured).toMatchObject({
      code: TOOL_DEFINITION_CHANGED,
      category: 'permanent',
      details: { tool: 'fs__read_file', changes: ['description', 'inputSchema.properties.path'] },
      suggestion: 'An operator reviews the change and accepts it: mcp-ext-gateway tools accept fs__read_file',
    });
    expect(structured.message).toContain('(description, inputSchema.properties.path)');
  });
});
