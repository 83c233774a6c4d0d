/** URLs a manifest or a server card may carry. Pure. */

/** An absolute http(s) URL in the form JSON Schema's `uri` format accepts, or `undefined`. */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}
