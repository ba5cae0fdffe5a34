// Web addresses on the board: whether a piece of text is one http(s) address (the "Add link"
// dialog, a pasted or dropped link), whether it is a YouTube or Vimeo video (a video node, played
// in its card through the provider's privacy-enhanced player), and the parts a url card shows.
// The service accepts the same addresses (absolute http or https, at most URL_MAX_CHARS characters).
import { URL_MAX_CHARS as MAX_URL_CHARS } from '@board-workspace/limits';

export type LinkCheck = { ok: true; url: string } | { ok: false; error: string };

/** Checks what someone typed or pasted as a link; the error says what to fix. */
export function checkLink(input: string): LinkCheck {
  const text = input.trim();
  if (!text) return { ok: false, error: 'Enter the address of the page, starting with https://' };
  if (/\s/.test(text)) return { ok: false, error: 'An address has no spaces: enter one link' };
  if (text.length > MAX_URL_CHARS) return { ok: false, error: `An address is at most ${MAX_URL_CHARS.toLocaleString()} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: 'Enter a full address, starting with https:// or http://' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, error: 'Only web addresses (https:// or http://) can be added' };
  }
  if (!url.hostname) return { ok: false, error: 'The address has no site name' };
  return { ok: true, url: text };
}

/** The one http(s) address `text` holds, if that is all it holds (a paste or a dropped link). */
export function singleUrl(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const check = checkLink(text);
  return check.ok ? check.url : undefined;
}

/** A dragged link: the first address of text/uri-list (its lines starting with # are comments). */
export function firstUriListEntry(list: string): string | undefined {
  const line = list
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  return singleUrl(line);
}

export interface VideoEmbed {
  provider: 'youtube' | 'vimeo';
  id: string;
  /** The privacy-enhanced player (no tracking cookies until played; Vimeo's "do not track"). */
  embedUrl: string;
  /** A still of the video, where the provider serves one at a known address. */
  thumbnailUrl?: string;
}

const YOUTUBE_ID = /^[\w-]{6,20}$/;
const host = (u: URL) => u.hostname.toLowerCase().replace(/^(www|m)\./, '');

/** The video of a YouTube (watch, youtu.be, shorts, embed, live) or Vimeo (vimeo.com/<id>) address. */
export function videoOf(address: string): VideoEmbed | undefined {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const h = host(u);
  let youtube: string | undefined;
  if (h === 'youtu.be') youtube = u.pathname.slice(1).split('/')[0];
  else if (h === 'youtube.com' || h === 'music.youtube.com' || h === 'youtube-nocookie.com') {
    youtube = u.pathname === '/watch' ? (u.searchParams.get('v') ?? undefined) : /^\/(?:shorts|embed|live)\/([^/]+)/.exec(u.pathname)?.[1];
  }
  if (youtube !== undefined) {
    if (!YOUTUBE_ID.test(youtube)) return undefined;
    const id = encodeURIComponent(youtube);
    return {
      provider: 'youtube',
      id: youtube,
      embedUrl: `https://www.youtube-nocookie.com/embed/${id}?autoplay=1&rel=0`,
      thumbnailUrl: `https://i.ytimg.com/vi/${id}/hqdefault.jpg`,
    };
  }
  if (h === 'vimeo.com' || h === 'player.vimeo.com') {
    // vimeo.com/<id>, vimeo.com/channels/<name>/<id>, player.vimeo.com/video/<id>
    const id = /^\/(?:video\/|channels\/[^/]+\/|groups\/[^/]+\/videos\/)?(\d{3,12})(?:\/|$)/.exec(u.pathname)?.[1];
    if (!id) return undefined;
    return { provider: 'vimeo', id, embedUrl: `https://player.vimeo.com/video/${id}?dnt=1&autoplay=1` };
  }
  return undefined;
}

/** The node type for an address: a video for YouTube and Vimeo, else a url card. */
export const linkNodeType = (address: string): 'video' | 'url' => (videoOf(address) ? 'video' : 'url');

/** What a url card shows: the site (without www.) and the rest of the address. */
export function addressParts(address: string): { host: string; rest: string } {
  try {
    const u = new URL(address);
    const rest = `${u.pathname === '/' ? '' : u.pathname}${u.search}${u.hash}`;
    return { host: u.host.replace(/^www\./, ''), rest: decodeSafely(rest) };
  } catch {
    return { host: address, rest: '' };
  }
}

function decodeSafely(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}
