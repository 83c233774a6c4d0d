/** Step 5 of the tour: content negotiation renders one ticket for an agent and for a person. */
import type { ToolResult } from '@ext/core';
import { CONTENT_NEGOTIATION_ID } from '@ext/content-negotiation';
import { getAppliedFeatures, overrideFeatures } from '@ext/content-negotiation/client';
import { compact, dig } from './explain.js';
import { expect, ok, print, row } from './output.js';
import { advertised, open, type TourTarget } from './target.js';

/** One ticket, fetched by an agent and by a person: the same handler renders it twice. */
export async function contentNegotiation(tour: TourTarget): Promise<void> {
  const audiences = [
    { label: 'agent', features: ['agent'] },
    { label: 'person', features: ['human'] },
  ] as const;
  const results: ToolResult[] = [];
  for (const { label, features } of audiences) {
    // Over stdio each client spawns its own server, so each creates the ticket it then reads.
    const connection = await open(tour, { withErrors: false, features, name: `${label}-client` });
    try {
      const extended = connection.extended;
      expect(extended !== undefined, 'the content-negotiation client has no extensions attached');
      // The tour needs the new id as data whoever asks: a per-call override asks for JSON.
      const created = await extended.callTool(
        'create_ticket',
        { title: 'Render me twice', assignee: 'bob' },
        { meta: overrideFeatures(['format=json']) },
      );
      const id = String(dig(created.structuredContent, 'ticket', 'id'));
      const result = await extended.callTool('get_ticket', { id });
      const sent = dig(advertised(connection, tour.era), CONTENT_NEGOTIATION_ID);
      print();
      row(
        `${label} client`,
        `declares ${compact(sent)}
tools/call get_ticket ${compact({ id })}`,
      );
      const structured =
        result.structuredContent === undefined
          ? 'no structuredContent'
          : `structuredContent ${compact(result.structuredContent)}`;
      row('server -> client', `${structured}\ncontent[0].text:\n${String(dig(result.content, '0', 'text'))}`);
      row('', `_meta["${CONTENT_NEGOTIATION_ID}"] ${compact(dig(result._meta, CONTENT_NEGOTIATION_ID))}`);
      results.push(result);
    } finally {
      await connection.close();
    }
  }
  const [forAgent, forPerson] = results;
  expect(
    getAppliedFeatures(forAgent)?.format === 'json' &&
      dig(forAgent?.structuredContent, 'ticket', 'title') === 'Render me twice',
    'the agent did not get the ticket as JSON',
  );
  expect(
    getAppliedFeatures(forPerson)?.format === 'markdown' && forPerson?.structuredContent === undefined,
    'the person did not get markdown',
  );
  expect(String(dig(forPerson?.content, '0', 'text')).startsWith('### '), 'the markdown does not start with a heading');
  print();
  ok(
    'one handler, two renderings: render(ctx, { data, markdown }) picked JSON for the agent and markdown for the person; each result names what it applied.',
  );
  await draftVariants(tour);
}

/** The draft SEP-3279: one call asks for the assistant's and the user's rendering at once, with `requestedOutputs`. */
async function draftVariants(tour: TourTarget): Promise<void> {
  const connection = await open(tour, { withErrors: false, features: ['human'], name: 'variants-client' });
  try {
    const extended = connection.extended;
    expect(extended !== undefined, 'the variants client has no extensions attached');
    const created = await extended.callTool(
      'create_ticket',
      { title: 'Render me for both', assignee: 'bob' },
      { meta: overrideFeatures(['format=json']) },
    );
    const id = String(dig(created.structuredContent, 'ticket', 'id'));
    const requestedOutputs = [
      { audience: 'assistant', format: 'content' },
      { audience: 'user', format: 'content' },
    ];
    const result = await extended.request('tools/call', { name: 'get_ticket', arguments: { id }, requestedOutputs });
    const outputs = Array.isArray(result.outputs) ? (result.outputs as unknown[]) : [];
    print();
    row('draft client', `tools/call get_ticket ${compact({ id, requestedOutputs })}`);
    const firstLines = outputs.map(
      (output) =>
        `${String(dig(output, 'audience'))}: ${String(dig(output, 'content', '0', 'text')).split('\n')[0] ?? ''}`,
    );
    row('server -> client', `outputs (beside the usual content):\n${firstLines.join('\n')}`);
    expect(
      outputs.length === 2 &&
        String(dig(outputs[0], 'content', '0', 'text')).startsWith('{') &&
        String(dig(outputs[1], 'content', '0', 'text')).startsWith('### '),
      `the draft outputs are ${compact(outputs)}, not JSON for the assistant then markdown for the user`,
    );
    ok('SEP-3279 result variants: the same renderers answer requestedOutputs, one output per selector, in order.');
  } finally {
    await connection.close();
  }
}
