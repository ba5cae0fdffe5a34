// The readable text of an HTML page and what a link preview shows of it. Mozilla's Readability
// (Firefox's reader view) finds the article over a server-side DOM (linkedom); its result is turned
// into text with a blank line between blocks, so the chunker's paragraphs follow the page's. A page
// Readability finds no article in (a short page, a list) gives the text of its body instead.
// The preview: title, description and site name as Readability reads them (og:, twitter:, JSON-LD,
// <title>), and the og:image (or twitter:image) made absolute against the page's address.
// Both are loaded on the first page read (linkedom is about 17 MiB of a process's memory), so a
// service that never reads a page does not hold them.
import type { Readability } from '@mozilla/readability';

export interface PagePreview {
  title?: string;
  description?: string;
  site_name?: string;
  image_url?: string;
}

export interface ReadPage {
  text: string;
  preview: PagePreview;
}

/** Longest preview fields kept on the node (its data has a size bound). */
const MAX_TITLE_CHARS = 300;
const MAX_DESCRIPTION_CHARS = 1000;
const MAX_IMAGE_URL_CHARS = 2000;

/** Elements whose content is never text a reader sees. */
const HIDDEN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'HEAD']);
/** Elements that start and end a block: a paragraph break around them. */
const BLOCK = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TR',
  'UL',
  'BODY',
  'HTML',
]);

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;

type DomNode = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<DomNode> };

/** The text of a DOM subtree: blocks apart by a blank line, a <br> a line break, other whitespace one space. */
export function domText(root: DomNode): string {
  const blocks: string[] = [];
  let current = '';
  const flush = () => {
    const text = current
      .split('\n')
      .map((line) => line.replace(/\s+/g, ' ').trim())
      .filter((line) => line !== '')
      .join('\n');
    if (text !== '') blocks.push(text);
    current = '';
  };
  const walk = (node: DomNode) => {
    if (node.nodeType === TEXT_NODE) {
      current += (node.textContent ?? '').replace(/\s+/g, ' ');
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const name = node.nodeName.toUpperCase();
    if (HIDDEN.has(name)) return;
    if (name === 'BR') {
      current += '\n';
      return;
    }
    const block = BLOCK.has(name);
    if (block) flush();
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) flush();
    else if (name === 'TD' || name === 'TH') current += ' ';
  };
  walk(root);
  flush();
  return blocks.join('\n\n');
}

const clip = (value: string | null | undefined, max: number): string | undefined => {
  const clean = value?.replace(/\s+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).trimEnd()}…`;
};

function imageUrl(document: Document, pageUrl: string): string | undefined {
  const selectors = [
    'meta[property="og:image"]',
    'meta[property="og:image:url"]',
    'meta[name="twitter:image"]',
    'meta[property="twitter:image"]',
  ];
  for (const selector of selectors) {
    const content = document.querySelector(selector)?.getAttribute('content')?.trim();
    if (!content) continue;
    try {
      const url = new URL(content, pageUrl);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.href.length <= MAX_IMAGE_URL_CHARS) return url.href;
    } catch {
      // Not an address: try the next tag.
    }
  }
  return undefined;
}

/** The page's readable text and its preview. `pageUrl`: where it was found, for relative addresses. */
export async function readHtml(html: string, pageUrl: string): Promise<ReadPage> {
  const [{ Readability }, { parseHTML }] = await Promise.all([import('@mozilla/readability'), import('linkedom')]);
  const { document } = parseHTML(html);
  const image = imageUrl(document as unknown as Document, pageUrl);
  const fallbackTitle = document.title;
  // Readability changes the document it reads: the body's text is taken first, in case it finds no article.
  const bodyText = () => domText(parseHTML(html).document.body as unknown as DomNode);
  let article: ReturnType<Readability<DomNode>['parse']> = null;
  try {
    article = new Readability<DomNode>(document as unknown as Document, { serializer: (node) => node as unknown as DomNode }).parse();
  } catch {
    article = null;
  }
  const text = article?.content ? domText(article.content) : '';
  const preview: PagePreview = {
    title: clip(article?.title || fallbackTitle, MAX_TITLE_CHARS),
    description: clip(article?.excerpt, MAX_DESCRIPTION_CHARS),
    site_name: clip(article?.siteName, MAX_TITLE_CHARS),
    image_url: image,
  };
  return { text: text.trim() !== '' ? text : bodyText(), preview };
}
