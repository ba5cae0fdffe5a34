// Distinct real text for the search speed benchmark: every SciFact abstract (the queries' own
// corpus, so the claims have answers on the board) and then this machine's English manual pages
// (/usr/share/man/man1..8, troff markup stripped), each document once. About 120 MB of manual pages
// on a Debian machine with the usual packages: well over 100,000 chunks, none a copy of another.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { loadCorpus } from './search-quality-data.js';

const MAN_ROOT = '/usr/share/man';

/** The readable text of a troff manual page: request lines lose their macro, escapes their codes. */
export function stripTroff(source: string): string {
  const out: string[] = [];
  for (const line of source.split('\n')) {
    if (line.startsWith('.\\"') || line.startsWith('\'\\"') || line.startsWith('.so ')) continue;
    let text = line;
    if (/^[.'][A-Za-z]{1,3}(\s|$)/.test(line)) {
      const [macro = ''] = line.slice(1).split(/\s/, 1);
      // Macros that carry text keep it (headings, fonts, tagged paragraphs); the rest are layout.
      if (!/^(SH|SS|B|I|BI|IB|BR|RB|IR|RI|SM|SB|IP|TP|Nm|Nd|Sh|Ss|Fn|Fa|Ar|Fl|Op|It|Xr|Pa|Dv|Er|Ev|Va|Cm|Em|Sy|Li|Ql|Dq|Sq)$/.test(macro))
        continue;
      text = line.slice(macro.length + 1).replace(/"/g, '');
    }
    text = text
      .replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
      .replace(/\\\((..)/g, ' ')
      .replace(/\\\[[^\]]*\]/g, ' ')
      .replace(/\\[*n]\(?..?/g, '')
      .replace(/\\[-e]/g, (m) => (m === '\\-' ? '-' : '\\'))
      .replace(/\\[&|^,/%:~0 ]/g, '')
      .replace(/\\s[-+]?\d/g, '')
      .trim();
    if (text) out.push(text);
  }
  return out.join('\n');
}

export interface RealDocument {
  title: string;
  text: string;
}

/** SciFact's abstracts, then the manual pages in a fixed (sorted) order, duplicates left out. */
export function* realDocuments(): Generator<RealDocument> {
  for (const doc of loadCorpus()) yield { title: doc.title, text: `${doc.title}. ${doc.text}` };
  const seen = new Set<string>();
  for (const section of ['man1', 'man2', 'man3', 'man4', 'man5', 'man6', 'man7', 'man8']) {
    const dir = path.join(MAN_ROOT, section);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (!name.endsWith('.gz') || !fs.statSync(file).isFile()) continue;
      let text: string;
      try {
        text = stripTroff(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8'));
      } catch {
        continue;
      }
      if (text.length < 300) continue;
      const digest = createHash('sha1').update(text).digest('hex');
      if (seen.has(digest)) continue;
      seen.add(digest);
      yield { title: name.replace(/\.gz$/, ''), text };
    }
  }
}

/** The real documents as a stream of note texts, each up to a given size (a longer document is cut). */
export class RealText {
  private readonly documents = realDocuments();
  private pending: string | undefined;

  /** Documents joined by blank lines up to `maxChars` characters; '' once every document is used. */
  text(maxChars: number): string {
    const parts: string[] = [];
    let length = 0;
    for (;;) {
      const next = this.pending ?? this.documents.next().value?.text;
      this.pending = undefined;
      if (next === undefined) break;
      if (length + next.length + 2 > maxChars) {
        if (parts.length === 0) parts.push(next.slice(0, maxChars));
        else this.pending = next;
        break;
      }
      parts.push(next);
      length += next.length + 2;
    }
    return parts.join('\n\n');
  }
}
