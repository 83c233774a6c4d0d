/**
 * The sign-in cookie: `__Host-approvals` over https (Secure, and, as that
 * prefix demands, `Path=/`), `approvals` over plain http (scoped to the
 * page's path); always HttpOnly and SameSite=Strict.
 */

/** Where the cookie applies: over https or not, and the page's path. */
export interface CookieScope {
  readonly secure: boolean;
  readonly basePath: string;
}

/** The cookie's name for this scheme. */
export function cookieName(scope: CookieScope): string {
  return scope.secure ? '__Host-approvals' : 'approvals';
}

function attributes(scope: CookieScope): string {
  return scope.secure
    ? 'Path=/; Secure; HttpOnly; SameSite=Strict'
    : `Path=${scope.basePath}; HttpOnly; SameSite=Strict`;
}

/** The `Set-Cookie` that signs a browser in for `maxAgeSeconds`. */
export function sessionCookie(scope: CookieScope, value: string, maxAgeSeconds: number): string {
  return `${cookieName(scope)}=${value}; Max-Age=${maxAgeSeconds}; ${attributes(scope)}`;
}

/** The `Set-Cookie` that removes it. */
export function clearedCookie(scope: CookieScope): string {
  return `${cookieName(scope)}=; Max-Age=0; ${attributes(scope)}`;
}

/** The value of cookie `name` in a `Cookie` header; the first one wins, as browsers send the most specific first. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
