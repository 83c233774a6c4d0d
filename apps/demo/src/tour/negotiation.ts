/** Step 1 of the tour: what each side advertised and negotiated, on each era, and the server's pipeline. */
import type { ComposedServer } from '@ext/core';
import { ERRORS_ID, ERRORS_PACKAGE_NAME } from '@ext/errors';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/client';
import { connect, MODERN_PROTOCOL_VERSION, type Connection, type Era, type Target } from '../client/connect.js';
import { compact, dig } from './explain.js';
import { expect, print, row, style } from './output.js';

/** Step 1, for one era: what each side advertised, read off the wire, and what the client negotiated. */
export async function negotiation(target: Target, era: Era): Promise<Connection> {
  const connection = await connect(target, { era, withErrors: true });
  const handshake = era === 'modern' ? 'server/discover' : 'initialize';
  const exchange = connection.wire.exchange(handshake);
  expect(exchange !== undefined, `the client did not send ${handshake}`);
  const sentPath =
    era === 'modern' ? ['_meta', CLIENT_CAPABILITIES_META_KEY, 'extensions'] : ['capabilities', 'extensions'];
  const sent = dig(exchange.request.params, ...sentPath);
  const received = dig(exchange.response?.result, 'capabilities', 'extensions');
  const negotiated = connection.extended?.negotiated(ERRORS_ID);

  print();
  print(
    era === 'modern'
      ? style.bold(
          `  Protocol ${MODERN_PROTOCOL_VERSION}: no initialize; the client repeats its capabilities in every request's _meta`,
        )
      : style.bold(
          `  Legacy era (${String(dig(exchange.response?.result, 'protocolVersion'))}): capabilities are exchanged once, in initialize`,
        ),
  );
  const sentWhere =
    era === 'modern' ? `params._meta["${CLIENT_CAPABILITIES_META_KEY}"].extensions` : 'params.capabilities.extensions';
  row('client -> server', `${handshake}\n${sentWhere}\n${compact(sent)}`);
  row('server -> client', `result.capabilities.extensions\n${compact(received)}`);
  row(
    'negotiated',
    negotiated ? `${ERRORS_PACKAGE_NAME} as ${negotiated.id} (settings ${compact(negotiated.settings)})` : 'nothing',
  );

  expect(dig(sent, ERRORS_ID) !== undefined, `the client did not advertise ${ERRORS_ID} on the ${era} era`);
  expect(dig(received, ERRORS_ID) !== undefined, `the server did not advertise ${ERRORS_ID} on the ${era} era`);
  expect(negotiated?.id === ERRORS_ID, `${ERRORS_PACKAGE_NAME} was not negotiated on the ${era} era`);
  expect(
    connection.extended?.era === era,
    `the client ended up on the ${String(connection.extended?.era)} era, not ${era}`,
  );
  return connection;
}

export function pipeline(composed: ComposedServer, where: string): void {
  print();
  print(style.bold(`  The server's tool-call pipeline (${where}), outermost first:`));
  print(
    composed
      .describe()
      .split('\n')
      .map((line) => `    ${line.trimEnd()}`)
      .join('\n'),
  );
  print(
    style.dim(
      '  @ext/core fixes this order, whatever order the extensions are listed in: checks that refuse a call run before anything with effects.',
    ),
  );
  expect(composed.pipeline[0]?.stage === 'errors', 'errors is not the outermost stage of the pipeline');
}
