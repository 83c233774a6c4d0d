/**
 * The string patterns the config schema checks names and values against,
 * and what each allows said for a person (error messages and the reference
 * use them).
 */

/** Upstream names: `__` is left out because it joins an upstream's name to its tools' (`<name>__<tool>`). */
export const UPSTREAM_NAME_PATTERN = '^(?!.*__)[A-Za-z0-9_-]{1,64}$';
/** Policy keys: tool-name characters, with `*` (any run) and `?` (one character) as wildcards. */
export const TOOL_GLOB_PATTERN = '^[A-Za-z0-9_./*?-]{1,128}$';
/** One tool's name, as MCP allows it (no wildcards). */
export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_./-]{1,128}$';
/** A permission scope. */
export const SCOPE_PATTERN = '^[A-Za-z0-9:._-]{1,64}$';
/** An environment variable's name. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** An HTTP header's name (an RFC 9110 token). */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
/** A `Host` header the gateway answers: a name or bracketed IPv6 address, optionally with a port. */
export const ALLOWED_HOST_PATTERN = '^(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?$';
/** A web page's origin: scheme, host and optional port, no path. */
export const ALLOWED_ORIGIN_PATTERN = '^https?://(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?$';
/** A claim name, or a dotted path into nested claims. */
export const CLAIM_PATH_PATTERN = '^[A-Za-z0-9_:-]{1,64}(?:\\.[A-Za-z0-9_:-]{1,64}){0,7}$';
/** A JWS algorithm with a public key: never `none` nor an HMAC one. */
export const ASYMMETRIC_ALGORITHM_PATTERN = '^(?:(?:RS|PS|ES)(?:256|384|512)|ES256K|EdDSA|Ed25519)$';
/** A bearer API key: at least 16 characters, no white space. */
export const API_KEY_PATTERN = '^\\S{16,}$';
/** A redaction detector's id, as its marker shows it (`[REDACTED:<id>]`). */
export const DETECTOR_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';

/** What each pattern above allows, said for a person (error messages and the reference use it). */
export const PATTERN_NAMES: Readonly<Record<string, string>> = {
  [UPSTREAM_NAME_PATTERN]: '1 to 64 letters, digits, `_` or `-`, without `__`',
  [TOOL_GLOB_PATTERN]: '1 to 128 letters, digits, `_`, `-`, `.`, `/`, and the wildcards `*` and `?`',
  [TOOL_NAME_PATTERN]: 'a tool name: 1 to 128 letters, digits, `_`, `-`, `.` or `/`',
  [SCOPE_PATTERN]: 'a scope: 1 to 64 letters, digits, `:`, `.`, `_` or `-`',
  [ENV_NAME_PATTERN]: 'an environment variable name: letters, digits and `_`, not starting with a digit',
  [HEADER_NAME_PATTERN]: 'an HTTP header name',
  [API_KEY_PATTERN]: 'at least 16 characters without white space',
  [DETECTOR_ID_PATTERN]: '1 to 64 lower-case letters, digits or `-`, not starting with `-`',
  [CLAIM_PATH_PATTERN]: 'a claim name or a dotted path such as `realm_access.roles`',
  [ASYMMETRIC_ALGORITHM_PATTERN]: 'an asymmetric JWS algorithm (RS256, PS256, ES256, EdDSA, ...; never none or HS*)',
  [ALLOWED_HOST_PATTERN]: 'a host name or `[IPv6]` address, optionally with `:port`',
  [ALLOWED_ORIGIN_PATTERN]: 'an origin such as `https://app.example.com` (scheme, host, optional port; no path)',
  '^https?://': 'an `http://` or `https://` URL',
  '^rediss?://': 'a `redis://` or `rediss://` URL',
  '^/': 'a path starting with `/`',
  '\\S': 'a string that is not blank',
};
