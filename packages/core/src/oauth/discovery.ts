/**
 * Where the issuer keeps its keys and its introspection endpoint: read once
 * from its metadata (OpenID Connect discovery, else RFC 8414), whose
 * `issuer` must be the one configured (a document naming another issuer is
 * refused, or it could hand out someone else's keys).
 */
import type { OAuthSettings } from './options.js';

export interface IssuerMetadata {
  readonly jwksUri: URL | undefined;
  readonly introspectionEndpoint: URL | undefined;
}

/** The issuer's metadata could not be read: the fault of a dependency (`503`), said in `message`. */
export class IssuerUnavailable extends Error {}

function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [
    new URL(`${url.origin}${path}/.well-known/openid-configuration`),
    new URL(`${url.origin}/.well-known/oauth-authorization-server${path}`),
  ];
}

async function readJson(url: URL, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'application/json' },
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new IssuerUnavailable(`${url.href} answered ${String(response.status)}`);
  }
  return response.json();
}

function optionalUrl(document: Record<string, unknown>, field: string): URL | undefined {
  const value = document[field];
  return typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
}

/** Reads the issuer's metadata; throws {@link IssuerUnavailable} when no document answers or one names another issuer. */
export async function discoverIssuer(settings: OAuthSettings): Promise<IssuerMetadata> {
  const faults: string[] = [];
  for (const url of metadataUrls(settings.issuer)) {
    try {
      const document = await readJson(url, settings.timeoutMs);
      if (typeof document !== 'object' || document === null)
        throw new IssuerUnavailable(`${url.href} is not a JSON object`);
      const record = document as Record<string, unknown>;
      if (record.issuer !== settings.issuer)
        throw new IssuerUnavailable(
          `${url.href} names issuer ${JSON.stringify(record.issuer)}, not ${settings.issuer}`,
        );
      return {
        jwksUri: optionalUrl(record, 'jwks_uri'),
        introspectionEndpoint: optionalUrl(record, 'introspection_endpoint'),
      };
    } catch (error) {
      faults.push(error instanceof Error ? error.message : String(error));
    }
  }
  throw new IssuerUnavailable(`the issuer's metadata could not be read: ${faults.join('; ')}`);
}
