// What an uploaded file may be and what it is called: the allowed types (judged by the bytes, and
// matching the declared type), and the stored name `<epoch_millis>-<safe original name>`.

/** Allowed types and the extensions each may carry; the first is used when one must be added. */
export const allowedTypes: Record<string, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'text/markdown': ['md', 'markdown'],
  'text/plain': ['txt', 'text'],
  'text/html': ['html', 'htm'],
  'text/vtt': ['vtt'],
  'application/x-subrip': ['srt'],
};

/** Files a document node is read from (src/documents/reading/document-text.ts). */
export const DOCUMENT_TYPES: readonly string[] = [
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/markdown',
  'text/plain',
  'text/html',
];

/** A video's transcript files (src/documents/reading/transcript.ts). */
export const TRANSCRIPT_TYPES: readonly string[] = ['text/vtt', 'application/x-subrip'];

/** Declared types read as another allowed type. */
const aliases: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'text/x-markdown': 'text/markdown',
  'application/xhtml+xml': 'text/html',
  'text/srt': 'application/x-subrip',
  'application/srt': 'application/x-subrip',
};

/**
 * Declared types that say nothing about a file: application/octet-stream, which curl sends for
 * extensions it does not know (such as .webp), and text/plain, the type of a part that has no
 * Content-Type (RFC 7578 §4.4), which is what the multipart parser reports for it: a part without
 * a type cannot be told from one declared text/plain.
 */
const UNDECLARED = new Set(['', 'application/octet-stream', 'text/plain']);

/**
 * The declared part type, normalised: undefined when the client declared nothing useful (see
 * UNDECLARED); then the bytes alone decide.
 */
export function declaredType(mimetype: string | undefined): string | undefined {
  const bare = (mimetype ?? '').split(';')[0]!.trim().toLowerCase();
  if (UNDECLARED.has(bare)) return undefined;
  return aliases[bare] ?? bare;
}

export const MAX_NAME_CHARS = 120;

/**
 * The most UTF-8 bytes of the safe name. The stored filename is `<epoch_millis>-<name>`: 14 bytes
 * more (13 digits until the year 2286), at most 214 bytes, so it fits the 255-byte name limit of
 * common file systems (ext4, XFS, APFS, NTFS) as one path segment on disk, with room for what
 * file-system-backed S3 stores add to a key's last segment (s3rver adds `._S3rver_metadata.json`,
 * 22 bytes; MinIO keeps each segment as a directory name). 120 CJK characters would be 360 bytes.
 */
export const MAX_NAME_BYTES = 200;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest start of `text` within `maxChars` code points and `maxBytes` UTF-8 bytes, cut
 * between user-perceived characters (grapheme clusters): never inside a surrogate pair, and an
 * accent or an emoji's joiner sequence is never cut from its base.
 */
export function cutName(text: string, maxChars: number, maxBytes: number): string {
  let chars = 0;
  let bytes = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    chars += [...segment].length;
    bytes += Buffer.byteLength(segment, 'utf8');
    if (chars > maxChars || bytes > maxBytes) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/**
 * The original name reduced to a safe form: the last path segment only; no control or format
 * characters (bidi overrides could disguise the extension); none of / \ : * ? " < > |; no leading
 * dots or spaces; at most 120 characters and 200 UTF-8 bytes (MAX_NAME_BYTES) with the extension
 * kept; the extension of the detected type added when the name has none of its own.
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
  // The suffix is ASCII: its length is its size in both code points and bytes.
  const cut = cutName(stem, MAX_NAME_CHARS - suffix.length, MAX_NAME_BYTES - suffix.length);
  if (cut !== stem) stem = cut.replace(/[.\s]+$/u, '') || 'file';
  return `${stem}${suffix}`;
}

const extensionOf = (name: string | undefined): string => {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
};

const WEBVTT = /^WEBVTT(?:[ \t].*)?(?:\r?\n|$)/;
const SRT_START = /^\s*\d+[ \t]*\r?\n[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/;
const HTML_START = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b/i;

/**
 * The type of a text file, which file-type cannot tell (it reads binary signatures only): its first
 * bytes must be UTF-8 text without NUL, and then what they hold decides among the types its
 * extension may have. WebVTT begins with "WEBVTT", SubRip with a numbered cue and its times, HTML
 * with a doctype or an <html>, <head> or <body> tag; Markdown and plain text are any other text.
 * Undefined when the bytes are not text or do not fit the extension.
 */
export function textFileType(head: Buffer, filename: string | undefined): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true }).replace(/^\ufeff/, '');
  } catch {
    return undefined;
  }
  if (text.includes('\u0000') || text.trim() === '') return undefined;
  switch (extensionOf(filename)) {
    case 'vtt':
      return WEBVTT.test(text) ? 'text/vtt' : undefined;
    case 'srt':
      return SRT_START.test(text) ? 'application/x-subrip' : undefined;
    case 'html':
    case 'htm':
      return HTML_START.test(text) ? 'text/html' : undefined;
    case 'md':
    case 'markdown':
      return 'text/markdown';
    case 'txt':
    case 'text':
      return 'text/plain';
    default:
      return undefined;
  }
}
