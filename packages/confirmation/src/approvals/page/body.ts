/** Request bodies read with a bound: the page takes small forms and small JSON, nothing more. */

/** Most bytes a sign-in form or a decision may have. */
export const MAX_BODY_BYTES = 16 * 1024;

/** The body as text, or `undefined` when it is larger than `limit` bytes. */
export async function boundedText(request: Request, limit = MAX_BODY_BYTES): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return undefined;
  if (request.body === null) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The media type of the body, lower case, without parameters. */
export function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
