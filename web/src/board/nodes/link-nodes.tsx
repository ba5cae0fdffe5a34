// Nodes that point at the web: a url card, a video card (a YouTube thumbnail when the address is
// YouTube's, else a play card; both open the video in a new tab) and a document with a preview of
// its text.
import { useState } from 'react';
import type { NodeProps } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';
import { DocumentIcon, LinkIcon, VideoIcon } from '../icons';
import { labelOf, NodeFrame, str } from './node-frame';

function hostOf(url: string): string {
  try {
    return new URL(url).host.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** The video id of a YouTube address (watch, youtu.be, shorts, embed), if it is one. */
export function youTubeId(url: string): string | undefined {
  try {
    const u = new URL(url);
    const host = u.hostname.replace(/^(www|m)\./, '');
    if (host === 'youtu.be') return u.pathname.slice(1).split('/')[0] || undefined;
    if (host === 'youtube.com' || host === 'youtube-nocookie.com') {
      const v = u.searchParams.get('v');
      if (v) return v;
      const match = /^\/(?:shorts|embed|live)\/([\w-]+)/.exec(u.pathname);
      return match?.[1];
    }
  } catch {
    // not a URL
  }
  return undefined;
}

export function UrlNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.url);
  return (
    <NodeFrame id={id} kind="url" icon={<LinkIcon />} title={labelOf(data, hostOf(url) || 'Link')} selected={selected}>
      <a className="bw-card-link nodrag" href={url} target="_blank" rel="noopener noreferrer">
        <span className="bw-card-link__host">{hostOf(url)}</span>
        <span className="bw-card-link__url">{url}</span>
      </a>
    </NodeFrame>
  );
}

export function VideoNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.url);
  const videoId = youTubeId(url);
  const [thumbnailFailed, setThumbnailFailed] = useState(false);
  return (
    <NodeFrame id={id} kind="video" icon={<VideoIcon />} title={labelOf(data, 'Video')} selected={selected}>
      <a
        className="bw-video nodrag"
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        aria-label={`Watch ${labelOf(data, 'the video')}`}
      >
        {videoId && !thumbnailFailed ? (
          <img
            src={`https://i.ytimg.com/vi/${encodeURIComponent(videoId)}/hqdefault.jpg`}
            alt=""
            loading="lazy"
            draggable={false}
            onError={() => setThumbnailFailed(true)}
          />
        ) : null}
        <span className="bw-video__play" aria-hidden="true">
          <svg viewBox="0 0 24 24" width="28" height="28" fill="currentColor" aria-hidden="true">
            <path d="M8 5v14l11-7z" />
          </svg>
        </span>
      </a>
      <div className="bw-card-link__host">{hostOf(url)}</div>
    </NodeFrame>
  );
}

export function DocumentNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const text = str(data.text);
  const url = str(data.url);
  return (
    <NodeFrame id={id} kind="document" icon={<DocumentIcon />} title={labelOf(data, 'Document')} selected={selected}>
      <p className="bw-document__preview">{text.length > 600 ? `${text.slice(0, 600)}…` : text || 'Empty document'}</p>
      <div className="bw-document__meta">
        {text.length.toLocaleString()} characters
        {url && (
          <>
            {' · '}
            <a className="nodrag" href={url} target="_blank" rel="noopener noreferrer">
              {hostOf(url)}
            </a>
          </>
        )}
      </div>
    </NodeFrame>
  );
}
