/** `mcp-server-time` (PyPI, read from 2026.10.19): two reads of the clock, free and instant. */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

/** No quota: the server computes locally, and clients may call it as often as they like. */
const CLOCK = { ...READ_ONLY, cost: { category: 'free', latency: 'instant' } } as const;

export const TIME_POLICY: PolicyMap = {
  get_current_time: CLOCK,
  convert_time: CLOCK,
};
