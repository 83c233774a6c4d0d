/**
 * The built-in secret detectors: each finds one kind of secret in a string and
 * replaces it with `[REDACTED:<id>]`. Pure.
 *
 * Every pattern is written to run in linear time on hostile input: character
 * classes on either side of a repetition are disjoint, repetitions that may
 * fail to find their terminator are bounded, and a match starts only where a
 * lookbehind allows, so no input makes the engine retry a long run from every
 * position. Prefixes, minimum lengths and boundaries keep look-alikes (a git
 * commit SHA, a UUID, a placeholder in documentation) out.
 */
import { patternDetector, type Detector, type Rewrite } from './pattern-detector.js';

/** Keeps capture group 1 (a key, a scheme, a separator) and replaces the rest of the match. */
const keepFirstGroup: Rewrite = (match, marker) => (match[1] ?? '') + marker;

// Key names that mark a value as secret, compared lower-cased with separators removed.
// `pwd` only on its own: OLDPWD and the like hold directories.
const SECRET_KEY_EXACT = new Set(['pwd']);
const SECRET_KEY_SUFFIXES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'token',
  'privatekey',
  'secretkey',
  'secretaccesskey',
];
// Pagination cursors and MCP's own progress token are called tokens but are not credentials,
// and redacting them would break the next call.
const NOT_SECRET_SUFFIXES = [
  'pagetoken',
  'nexttoken',
  'prevtoken',
  'previoustoken',
  'continuationtoken',
  'cursortoken',
  'synctoken',
  'resumetoken',
  'paginationtoken',
  'progresstoken',
];

/**
 * Whether a key (a JSON property, an environment variable, a config entry)
 * names a secret: password, passwd, passphrase, secret, api key, token,
 * private/secret key, with any prefix (`DB_PASSWORD`, `client_secret`,
 * `x-api-key`, `accessToken`), or exactly `pwd`; not pagination tokens.
 */
export function isSecretKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (SECRET_KEY_EXACT.has(name)) return true;
  if (NOT_SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix))) return false;
  return SECRET_KEY_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

// `key` `:` / `=` / `:=` / `=>` with optional quotes (plain or backslash-escaped, as in JSON inside a string).
const SEPARATOR = String.raw`\\?["']?[ \t]{0,16}(?::=|=>|[:=])[ \t]{0,16}`;

/**
 * A field value: a double-quoted string (escapes allowed), a backslash-escaped
 * one, a single-quoted one, or a bare word (not starting with `=` or `:`,
 * which would be half of a `:=` separator; without backquotes, which open
 * code). The quoted forms need no closing quote, so a value cut off by
 * truncation is still caught and a missing quote cannot make the engine
 * rescan the line.
 */
const FIELD_VALUE = String.raw`"(?:[^"\\\r\n]|\\.)+|\\"[^"\\\r\n]+|'[^'\r\n]+|[^\s"'\x60\\,;&<>(){}\[\]=:][^\s"'\x60\\,;&<>(){}\[\]]*`;

const FIELD_KEY_ENDINGS = 'password|passwd|passphrase|pwd|secret|key|token';

const QUOTE_AT_START = /^\\?["']/u;

/**
 * A bare value that is code or configuration rather than a secret: a
 * reference (`$DB_PASSWORD`, `${{ secrets.X }}`), a member expression
 * (`process.env.TOKEN`, `self.password`, `this.#token`), a keyword, a type or
 * an empty literal (`password: string;`, `token = None`, `token = await f()`),
 * or a CI permission (`id-token: write`).
 */
const NOT_A_SECRET_VALUE =
  /^(?:\$.*|[A-Za-z_#$][\w#$]*(?:[?!]?\.[A-Za-z_#$][\w#$]*)+!?|null|undefined|none|nil|true|false|string|number|boolean|str|int|bool|bytes|any|unknown|await|new|this|self|typeof|function|async|require|read|write)$/iu;
// Without a digit: generated secrets and most passwords have one, names in code mostly do not.
const IDENTIFIER = /^[A-Za-z_$]+$/u;
// After such an identifier, one of these makes it an argument, a property shorthand or a type in code
// (`f(password=pw, ...)`, `{ token: bearer }`, `key: KeyLike | string`)...
const CODE_AFTER_IDENTIFIER = /^[ \t]*[,)}\]|]/u;
// ...and so does `;` after `key: Type` (`token: Token;`), but not after `=`: connection strings
// (`Server=db;Password=...;`) end their fields with it.
const TYPE_AFTER_COLON = /:[ \t]*$/u;

/**
 * For `password-field`: group 1 keeps the key and separator, group 2 is the
 * key's opening quote, group 3 the key, group 4 the value. A quoted key with
 * an unquoted value is JSON `null`, a number or a boolean: left alone, so
 * JSON text stays JSON. A bare value that is code is left alone too, so that
 * source files stay readable; a quoted one in code is a hard-coded secret.
 */
const rewriteField: Rewrite = (match, marker) => {
  const [whole, prefix = '', keyQuote = '', key = '', value = ''] = match;
  if (!isSecretKey(key)) return undefined;
  const quote = QUOTE_AT_START.exec(value)?.[0] ?? '';
  if (quote !== '') return prefix + quote + marker;
  const end = match.index + whole.length;
  // What follows tells code from configuration; a short window keeps this constant-time per match.
  return keyQuote !== '' || isCode(prefix, value, match.input.slice(end, end + 64)) ? undefined : prefix + marker;
};

function isCode(prefix: string, bareValue: string, after: string): boolean {
  if (/^[([<]/u.test(after) || NOT_A_SECRET_VALUE.test(bareValue)) return true;
  if (!IDENTIFIER.test(bareValue)) return false;
  return CODE_AFTER_IDENTIFIER.test(after) || (TYPE_AFTER_COLON.test(prefix) && /^[ \t]*;/u.test(after));
}

/**
 * For `bearer`: after `Authorization:` any credential is one; a bare
 * `Bearer <word>` must look like a token (long, with a digit, or very long)
 * so that prose ("a Bearer token") is left alone.
 */
const rewriteBearer: Rewrite = (match, marker) => {
  const [, prefix = '', credential = ''] = match;
  const inHeader = /^authorization/iu.test(prefix);
  const tokenLike = (credential.length >= 16 && /\d/u.test(credential)) || credential.length >= 32;
  return inHeader || tokenLike ? prefix + marker : undefined;
};

const PEM_LABEL = String.raw`(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?`;

/** A key word then a separator: the hint of the detectors that read `key=value` fields. */
const fieldHint = (words: string): RegExp => new RegExp(String.raw`(?:${words})${SEPARATOR}`, 'iu');

/**
 * Built-in detectors, in the order they run: whole blocks and prefixed tokens
 * first, so that a token inside a header or a `key=value` field is named after
 * its kind; the generic header and field detectors last.
 */
export const BUILTIN_DETECTORS: readonly Detector[] = [
  // The whole block; or up to the next BEGIN, or to the end of the text, when the END line was cut off.
  // The body cannot contain `-----`, so a BEGIN never makes the engine scan past the next boundary; and
  // a block that stops at a boundary is never one a later pass could end at a marker instead.
  patternDetector(
    'private-key',
    new RegExp(
      String.raw`-----BEGIN ${PEM_LABEL}-----(?:[^-]|-(?!----))*(?:-----END ${PEM_LABEL}-----|(?=-{5,}BEGIN )|$)`,
      'gu',
    ),
    { hint: /-----BEGIN /u },
  ),
  patternDetector('aws-access-key-id', /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/gu, {
    hint: /AKIA|ASIA/u,
  }),
  // 40 base64 characters are also a git SHA or a hash: only when a key names them an AWS secret.
  patternDetector(
    'aws-secret-access-key',
    new RegExp(
      String.raw`(?<![\w.-])(\\?["']?[\w.-]{0,32}?(?:aws[\w.-]{0,16}?secret[_-]?(?:access[_-]?)?key|secret[_-]?access[_-]?key)${SEPARATOR}\\?["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
      'giu',
    ),
    { rewrite: keepFirstGroup, hint: fieldHint('key') },
  ),
  patternDetector('gcp-api-key', /(?<![\w-])AIza[\w-]{35}(?![\w-])/gu, { hint: /AIza/u }),
  patternDetector('azure-storage-key', /(?<![A-Za-z0-9])(AccountKey[ \t]{0,8}=[ \t]{0,8})[A-Za-z0-9+/]{20,}={0,2}/giu, {
    rewrite: keepFirstGroup,
    hint: /AccountKey/iu,
  }),
  patternDetector('github-token', /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{36,})/gu, {
    hint: /gh[pousr]_|github_pat_/u,
  }),
  patternDetector('gitlab-token', /(?<![\w-])glpat-[\w-]{20,}/gu, { hint: /glpat-/u }),
  // Real tokens start with a numeric team or user id; `xoxb-your-token` in documentation does not.
  patternDetector('slack-token', /(?<![\w-])xox[abposr]-[0-9]+-[A-Za-z0-9-]{8,}/gu, { hint: /xox[abposr]-/u }),
  patternDetector(
    'slack-webhook',
    /(?<![\w.-])(?:https?:\/\/)?hooks\.slack\.com\/services\/[A-Za-z0-9]{6,}\/[A-Za-z0-9]{6,}\/[A-Za-z0-9]{12,}/gu,
    { hint: /hooks\.slack\.com/u },
  ),
  patternDetector('stripe-key', /(?<![A-Za-z0-9_])[rs]k_live_[A-Za-z0-9]{16,}/gu, { hint: /k_live_/u }),
  patternDetector('npm-token', /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/gu, { hint: /npm_/u }),
  // Header and payload are base64url JSON; no `.` inside a segment keeps the three parts unambiguous.
  patternDetector('jwt', /(?<![\w-])eyJ[\w-]{10,}\.[\w-]{2,}\.[\w-]{16,}(?:\.[\w-]+){0,2}/gu, { hint: /eyJ/u }),
  // `scheme://user:password@`: the password only, so the address stays readable.
  patternDetector(
    'url-credentials',
    /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/?#@"'<>[\]]{0,256}:)[^\s/?#@"'<>[\]]{1,256}(?=@)/giu,
    { rewrite: keepFirstGroup, hint: /:\/\//u },
  ),
  patternDetector(
    'basic-auth',
    /(?<![A-Za-z0-9_])(Authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?Basic[ \t]+)[A-Za-z0-9+/]{4,}={0,2}/giu,
    { rewrite: keepFirstGroup, hint: /Basic[ \t]/iu },
  ),
  patternDetector(
    'bearer',
    /(?<![A-Za-z0-9_])((?:Authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?)?Bearer[ \t]+)([\w.~+/-]+=*)/giu,
    { rewrite: rewriteBearer, hint: /Bearer[ \t]/iu },
  ),
  // Candidate keys end in one of the secret words; `isSecretKey` decides on the whole key.
  patternDetector(
    'password-field',
    new RegExp(
      String.raw`(?<![\w.-])((\\?["']?)([\w.-]{0,64}?(?:${FIELD_KEY_ENDINGS}))${SEPARATOR})(${FIELD_VALUE})`,
      'giu',
    ),
    { rewrite: rewriteField, hint: fieldHint(FIELD_KEY_ENDINGS) },
  ),
];
