// Dates as people read them, in their own locale and time zone.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(iso: string | null | undefined, none = 'Never'): string {
  return iso ? dateTime.format(new Date(iso)) : none;
}

export function formatDate(iso: string | null | undefined, none = 'Never'): string {
  return iso ? dateOnly.format(new Date(iso)) : none;
}

/** The app's link to a board (what the copy-link buttons copy). */
export function boardLink(boardId: string): string {
  return `${window.location.origin}/boards/${boardId}`;
}

/** A path to return to after signing in: only same-site paths, never `//host` (open redirect). */
export function safeNext(value: string | null | undefined): string | undefined {
  return value?.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : undefined;
}
