/** An extension's notification methods: `notifications/<id>/<name>`, each name looked up by its kind. */

/**
 * The method of one `kind` of an extension's notifications under `id` (the
 * identifier negotiated, which may be an alias): `notifications/<id>/<name>`
 * with the name `table` gives the kind.
 */
export function notificationMethod<Table extends Readonly<Record<string, string>>>(
  id: string,
  table: Table,
  kind: keyof Table & string,
): string {
  return `notifications/${id}/${table[kind]}`;
}
