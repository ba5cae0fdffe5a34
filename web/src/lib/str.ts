/** A value that should be a string, or '' (a node's `data` is read from the API as unknown values). */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
