/** The README's result variants: a server that also answers SEP-3279's `requestedOutputs` with `outputs`. */
// #region variants
import { composeServer } from '@ext/core';
import { contentNegotiationServer } from '@ext/content-negotiation/server';

const composed = composeServer([contentNegotiationServer({ resultVariants: true })]);
// #endregion variants

export { composed };
