/** The README's kit: `label`, a small extension built with it (clients label tool calls; the server checks each label). */
// #region kit
import { Type } from 'typebox';
import {
  defineLocal,
  invalidInputError,
  lazyValidator,
  positiveIntegerOption,
  readMetaEntry,
  settingsReader,
} from '@ext/core/kit';
import { extensionId, type ClientExtension, type ServerExtension } from '@ext/core';

export const LABEL_ID = extensionId('label'); // io.github.mcp-ext/label

// What the server advertises: the longest label it accepts. Clients read it with getLabelSettings.
const LabelSettings = Type.Object({ version: Type.String(), max_length: Type.Integer({ minimum: 1 }) });
export const getLabelSettings = settingsReader({ id: LABEL_ID, schema: LabelSettings, majors: [1] }); // or undefined

/** The call's label, for the tool and the inner stages: `callLabel.get(ctx)`. */
export const callLabel = defineLocal<string>('label/call'); // Symbol.for('io.github.mcp-ext/label/call')

export function labelServer(options: { readonly maxLength?: number } = {}): ServerExtension {
  const maxLength = positiveIntegerOption('labelServer', 'maxLength', options.maxLength, 64); // else INVALID_OPTION
  const entry = lazyValidator(Type.Object({ label: Type.String({ minLength: 1, maxLength }) })); // compiled on first use
  return {
    side: 'server',
    name: '@ext/label',
    ids: [LABEL_ID],
    settings: { version: '1.0', max_length: maxLength },
    stage: { after: 'intent' },
    middleware: async (call, ctx, next) => {
      const read = readMetaEntry({ _meta: call.meta }, LABEL_ID, entry); // undefined, typed, or the fault
      if (!read.ok) throw invalidInputError(read, `Send a label of 1 to ${maxLength} characters.`); // field, pointer
      if (read.value === undefined) return next();
      callLabel.set(ctx, read.value.label);
      const result = await next();
      return { ...result, _meta: { ...result._meta, [LABEL_ID]: { label: read.value.label } } }; // echoed back
    },
  };
}

export function labelClient(options: { readonly label: (tool: string) => string | undefined }): ClientExtension {
  return {
    side: 'client',
    name: '@ext/label',
    ids: [LABEL_ID],
    settings: { version: '1.0' },
    prepareCall: (call, negotiated) => {
      const label = options.label(call.name);
      if (negotiated !== undefined && label !== undefined) call.meta[LABEL_ID] = { label }; // params._meta[LABEL_ID]
    },
  };
}
// #endregion kit
