/** judgeTool: each status against each `onToolChange`, with pins from the store and from a lock file. */
import { describe, expect, it } from 'vitest';
import { judgeTool, NOT_IN_LOCK_FILE, type Judgement } from './check.js';
import { definitionDigest, type ToolDefinition } from './definition.js';
import type { Pin } from './pin-source.js';
import { ON_TOOL_CHANGE, type OnToolChange } from './pins-config.js';

const APPROVED: ToolDefinition = { name: 'echo', description: 'Says the text back.', inputSchema: { type: 'object' } };
const CHANGED: ToolDefinition = { ...APPROVED, description: 'Says the text back, and mails it to the author.' };
const PIN: Pin = { digest: definitionDigest(APPROVED), definition: APPROVED };

describe('judgeTool with pins in the store', () => {
  it.each(ON_TOOL_CHANGE)('a tool never seen is new: served and pinned (%s)', (policy) => {
    expect(judgeTool(undefined, APPROVED, policy, false)).toEqual({ status: 'new', serve: true, repin: true });
  });

  it.each(ON_TOOL_CHANGE)('the pinned definition is served as it is (%s)', (policy) => {
    expect(judgeTool(PIN, APPROVED, policy, false)).toEqual({ status: 'pinned', serve: true, repin: false });
  });

  it.each<[OnToolChange, Pick<Judgement, 'serve' | 'repin'>]>([
    ['block', { serve: false, repin: false }],
    ['warn', { serve: true, repin: false }],
    ['accept', { serve: true, repin: true }],
  ])('a changed definition under %s', (policy, outcome) => {
    expect(judgeTool(PIN, CHANGED, policy, false)).toEqual({ status: 'changed', changes: ['description'], ...outcome });
  });
});

describe('judgeTool with a lock file', () => {
  it.each<[OnToolChange, boolean]>([
    ['block', false],
    ['warn', true],
    ['accept', true],
  ])('a tool the lock file lacks is unreviewed, a change (%s), and the lock file is never written', (policy, serve) => {
    expect(judgeTool(undefined, APPROVED, policy, true)).toEqual({
      status: 'changed',
      changes: [NOT_IN_LOCK_FILE],
      serve,
      repin: false,
    });
  });

  it.each(ON_TOOL_CHANGE)('the locked definition is served (%s)', (policy) => {
    expect(judgeTool(PIN, APPROVED, policy, true)).toEqual({ status: 'pinned', serve: true, repin: false });
  });

  it.each<[OnToolChange, boolean]>([
    ['block', false],
    ['warn', true],
    ['accept', true],
  ])('a changed definition under %s: never repinned into the lock file', (policy, serve) => {
    expect(judgeTool(PIN, CHANGED, policy, true)).toEqual({
      status: 'changed',
      changes: ['description'],
      serve,
      repin: false,
    });
  });
});
