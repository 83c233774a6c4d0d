/**
 * How the console signs in: the bearer token a link carries, kept for this
 * tab once the person agreed to act as the user it names, and who the
 * tracker says that token belongs to.
 */
import { answered, element, record } from './page.js';

const TOKEN_KEY = 'tracker-token';

/** Who `token` belongs to, as the tracker says (`/console/whoami`): a user, `anonymous`, or `undefined` for a token it refuses. */
async function whoami(token: string | undefined): Promise<string | undefined> {
  const headers = token === undefined ? undefined : { authorization: `Bearer ${token}` };
  const response = await fetch(new URL('/console/whoami', window.location.origin), { headers });
  if (!response.ok) return undefined;
  const answer = record(await response.json()) ?? {};
  if (answer.anonymous === true) return 'anonymous';
  return typeof answer.user === 'string' ? answer.user : undefined;
}

/** Asks the person before a link signs this tab in (or switches it to another user): true only on an explicit yes. */
function askSignIn(linked: string, current: string | undefined): Promise<boolean> {
  const dialog = element('sign-in') as HTMLDialogElement;
  element('sign-in-message').textContent =
    current === undefined
      ? `The link you opened signs this tab in as ${linked}.`
      : `This tab is signed in as ${current}. The link you opened would sign it in as ${linked} instead.`;
  element('sign-in-accept').textContent = `Sign in as ${linked}`;
  element('sign-in-decline').textContent = current === undefined ? 'Do not sign in' : `Stay signed in as ${current}`;
  return answered(dialog, 'accept');
}

/** Shows who the page acts as, for every call it makes. */
function showIdentity(user: string | undefined): void {
  const shown = element('identity');
  shown.dataset.user = user ?? '';
  shown.textContent = user === undefined ? 'Not signed in.' : `Signed in as ${user}.`;
}

/**
 * The bearer token this page signs in with. The link the server prints
 * carries one in the URL fragment (never sent in a request); it is taken
 * out of the address bar at once, and kept for this tab only once the
 * person agreed to act as the user it names: a crafted link must not sign
 * anyone in as somebody else unawares (login CSRF).
 */
export async function signIn(): Promise<string | undefined> {
  const fromLink = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromLink !== null) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const kept = window.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  const current = kept === undefined ? undefined : await whoami(kept);
  if (fromLink === null || fromLink === '' || fromLink === kept) {
    showIdentity(current);
    return kept;
  }
  const linked = await whoami(fromLink);
  if (linked === undefined) {
    showIdentity(current);
    element('status').textContent = 'The link you opened carries a token the tracker does not know; it was ignored.';
    return kept;
  }
  if (!(await askSignIn(linked, current))) {
    showIdentity(current);
    return kept;
  }
  window.sessionStorage.setItem(TOKEN_KEY, fromLink);
  showIdentity(linked);
  return fromLink;
}
