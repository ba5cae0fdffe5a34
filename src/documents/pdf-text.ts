// Extracts the text of each page of a PDF (unpdf, a serverless build of Mozilla's pdf.js).
import type { PageText } from './chunker.js';

export async function pdfPages(bytes: Uint8Array): Promise<PageText[]> {
  // Loaded on the first PDF, not at every start.
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    return text.map((t, i) => ({ page: i + 1, text: t }));
  } finally {
    await pdf.destroy().catch(() => {});
  }
}
