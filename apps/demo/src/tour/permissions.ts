/** Step 7 of the tour: permissions, a scope asked about, negotiated and refused. */
import { getStructuredError } from '@ext/errors/client';
import { PERMISSIONS_ID } from '@ext/permissions';
import { negotiateScopes, permissionsClient, preflight } from '@ext/permissions/client';
import { CATEGORY_ADVICE, compact } from './explain.js';
import { ADMIN_SCOPE } from '../tools/tool-limits.js';
import { expect, ok, print, row } from './output.js';
import { open, type TourTarget } from './target.js';

/** A tool that needs a scope nobody is granted automatically: asked about, negotiated, refused. */
export async function permissions(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { extensions: [permissionsClient()], name: 'permissions-client' });
  try {
    const client = connection.extended;
    expect(client !== undefined, 'the permissions client has no extensions attached');
    const check = await preflight(client, 'purge_closed_tickets');
    row('client -> server', `${PERMISSIONS_ID}/check ${compact({ tool: 'purge_closed_tickets' })}`);
    row('server -> client', compact(check));
    expect(
      check?.allowed === false && check.missing_scopes?.includes(ADMIN_SCOPE) === true,
      `preflight did not name the missing ${ADMIN_SCOPE} scope`,
    );
    const answer = await negotiateScopes(client, [ADMIN_SCOPE], { justification: 'tidy up the board' });
    row(
      'client -> server',
      `${PERMISSIONS_ID}/negotiate ${compact({ requested_scopes: [ADMIN_SCOPE], justification: 'tidy up the board' })}`,
    );
    row('server -> client', `granted ${compact(answer?.granted_scopes)}, denied ${compact(answer?.denied_scopes)}`);
    expect(
      answer?.denied_scopes?.some((denied) => denied.scope === ADMIN_SCOPE) === true,
      `${ADMIN_SCOPE} was granted automatically`,
    );
    const result = await client.callTool('purge_closed_tickets');
    const refused = getStructuredError(result);
    row('client -> server', 'tools/call purge_closed_tickets {} anyway');
    row('server -> client', `${String(refused?.code)} (${String(refused?.category)}): ${String(refused?.message)}`);
    expect(
      refused?.code === 'SCOPE_INSUFFICIENT' && refused.category === 'auth_required',
      'the admin tool was not refused for want of its scope',
    );
    print();
    row('what it means', `category "auth_required": ${CATEGORY_ADVICE.auth_required}`);
    ok('the client learned beforehand that it may not purge, and the server refused the call before the tool ran.');
  } finally {
    await connection.close();
  }
}
