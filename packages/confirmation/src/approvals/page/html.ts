/**
 * HTML from templates that escape every value put into them: the values
 * come from hostile callers (tool names, arguments, reasons, principals),
 * so markup only ever comes from the templates themselves.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** Markup made by {@link safeHtml}: the only thing a template puts in unescaped. */
export class Html {
  constructor(readonly markup: string) {}
}

/** What a template takes: text and numbers (escaped), markup, lists of markup; `undefined` and `false` put nothing. */
export type HtmlValue = string | number | Html | readonly Html[] | undefined | false;

function piece(value: HtmlValue): string {
  if (value === undefined || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(value);
  return value.map((item) => item.markup).join('');
}

/**
 * A template whose values are escaped unless they are already {@link Html}.
 * (Not named `html`: Prettier would reformat the markup of a tag by that name.)
 */
export function safeHtml(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += piece(value) + (strings[index + 1] ?? '');
  });
  return new Html(markup);
}
