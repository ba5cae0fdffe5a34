// The text of an uploaded document file: .docx by mammoth (its raw text, a blank line between
// paragraphs), .md and .txt as they are, .html by Readability (page-text.ts).
import { JobError } from '../../jobs/worker.js';
import { readHtml } from './page-text.js';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The file's text by its stored type (judged by its bytes on upload). */
export async function documentText(bytes: Buffer, contentType: string): Promise<string> {
  const utf8 = () => new TextDecoder('utf-8').decode(bytes);
  switch (contentType) {
    case DOCX_TYPE:
      try {
        // Loaded on the first .docx: a process that never reads one neither spends the CPU (about 0.3 s)
        // nor holds mammoth in memory.
        const { default: mammoth } = await import('mammoth');
        return (await mammoth.extractRawText({ buffer: bytes })).value;
      } catch {
        throw new JobError('The file could not be read as a Word document (.docx)');
      }
    case 'text/markdown':
    case 'text/plain':
      return utf8();
    case 'text/html':
      return (await readHtml(utf8(), 'about:blank')).text;
    default:
      throw new JobError(`A document node cannot be read from a ${contentType} file`);
  }
}
