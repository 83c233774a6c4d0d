/** Test support: a request's JSON body, parsed once and handed to the SDK's transports (`parsedBody`). */
export async function bodyOf(request: Request): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  const text = await request.text();
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
