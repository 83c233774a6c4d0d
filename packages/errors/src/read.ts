/** Reads a property without letting a hostile getter or proxy escape; `undefined` when absent or unreadable. */
export function readProperty(value: unknown, key: string): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    // A throwing getter is treated as an absent property.
    return undefined;
  }
}
