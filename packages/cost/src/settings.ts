/** The reader of the peer's cost settings, as it advertised them in `capabilities.extensions`. */
import { settingsReader } from '@ext/core/kit';
import { COST_ID, CostSettingsSchema } from './schema.js';

/**
 * The server's cost settings from its `capabilities.extensions` (e.g.
 * `client.serverExtensions()`), or `undefined` when it does not advertise a
 * version this package speaks. Never throws.
 */
export const getCostSettings = settingsReader({ id: COST_ID, schema: CostSettingsSchema, majors: [1] });
