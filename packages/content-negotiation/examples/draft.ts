/** The README's draft identifier: a server that also answers clients written against the SEP draft. */
// #region draft
import { composeServer } from '@ext/core';
import { contentNegotiationServer } from '@ext/content-negotiation/server';

const composed = composeServer([contentNegotiationServer({ acceptDraftIdentifier: true })]);
// #endregion draft

export { composed };
