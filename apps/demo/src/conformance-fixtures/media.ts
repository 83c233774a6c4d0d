/** What the conformance fixtures share: the smallest valid media the scenarios accept, a text result, a pause. */
import type { ToolResult } from '@ext/core';

// A 1x1 red PNG and a 1-sample silent WAV.
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const SILENT_WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==';

export const pause = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

export const text = (value: string): ToolResult => ({ content: [{ type: 'text', text: value }] });
