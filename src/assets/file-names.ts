// What an uploaded file may be and what it is called: the allowed types (judged by the bytes, and
// matching the declared type), and the stored name `<epoch_millis>-<safe original name>`.

/** Allowed types and the extensions each may carry; the first is used when one must be added. */
export const allowedTypes: Record<string, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
};

/** Declared types read as another allowed type. */
const aliases: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/**
 * The declared part type, normalised: undefined when the client declared nothing useful
 * (no type, or application/octet-stream, which curl sends for extensions it does not know, such
 * as .webp); then the bytes alone decide.
 */
export function declaredType(mimetype: string | undefined): string | undefined {
  const bare = (mimetype ?? '').split(';')[0]!.trim().toLowerCase();
  if (bare === '' || bare === 'application/octet-stream') return undefined;
  return aliases[bare] ?? bare;
}

export const MAX_NAME_CHARS = 120;

/**
 * The original name reduced to a safe form: the last path segment only; no control or format
 * characters (bidi overrides could disguise the extension); none of / \ : * ? " < > |; no leading
 * dots or spaces; at most 120 characters with the extension kept; the extension of the detected
 * type added when the name has none of its own.
 */
export function safeOriginalName(original: string | undefined, contentType: string): string {
  const extensions = allowedTypes[contentType] ?? [];
  let name = (original ?? '').normalize('NFC');
  name = name.split(/[/\\]/).pop() ?? '';
  name = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[:*?"<>|%]/g, '_')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/^[.\s]+/u, '')
    .replace(/[.\s]+$/u, '');
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  let stem = (extensions.includes(ext) ? name.slice(0, dot) : name).replace(/[.\s]+$/u, '');
  const suffix = `.${extensions.includes(ext) ? ext : (extensions[0] ?? 'bin')}`;
  if (stem === '') stem = 'file';
  // Counted in code points, cut on one, so no surrogate pair is split.
  const room = MAX_NAME_CHARS - suffix.length;
  const chars = [...stem];
  if (chars.length > room)
    stem =
      chars
        .slice(0, room)
        .join('')
        .replace(/[.\s]+$/u, '') || 'file';
  return `${stem}${suffix}`;
}
