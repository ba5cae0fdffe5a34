// Counts a PDF's pages in the browser before upload, so the pdf node can say "12 pages" without
// a PDF library in the bundle: page objects (`/Type /Page`) are counted in the file's plain text
// and inside its compressed object streams (FlateDecode, inflated with the browser's own
// DecompressionStream). Returns undefined when the count cannot be found (encrypted or unusual
// files); the node then just says "PDF".
const PAGE = /\/Type\s*\/Page(?![A-Za-z])/g;
const MAX_BYTES = 64 * 1024 * 1024;

async function inflate(bytes: Uint8Array): Promise<string | undefined> {
  try {
    const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new TextDecoder('latin1').decode(await new Response(stream).arrayBuffer());
  } catch {
    return undefined;
  }
}

export async function countPdfPages(file: Blob): Promise<number | undefined> {
  if (file.size > MAX_BYTES) return undefined;
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = new TextDecoder('latin1').decode(bytes);
  let pages = text.match(PAGE)?.length ?? 0;
  // Object streams: `<< /Type /ObjStm /Length N /Filter /FlateDecode … >> stream\r\n<N bytes>endstream`.
  for (const match of text.matchAll(/\/Type\s*\/ObjStm\b/g)) {
    const keyword = text.indexOf('stream', match.index + match[0].length);
    if (keyword === -1 || keyword - match.index > 1000) continue;
    const dictionary = text.slice(Math.max(0, match.index - 1000), keyword);
    if (!dictionary.includes('/FlateDecode')) continue;
    let start = keyword + 'stream'.length;
    if (text[start] === '\r') start++;
    if (text[start] === '\n') start++;
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary.slice(dictionary.lastIndexOf('<<')));
    const end = length ? start + Number(length[1]) : text.indexOf('endstream', start);
    if (end < start) continue;
    const inflated = await inflate(bytes.subarray(start, end));
    pages += inflated?.match(PAGE)?.length ?? 0;
  }
  return pages > 0 ? pages : undefined;
}
