// Nodes that point at the web: a url card (the site in bold and the rest of the address, opening
// in a new tab, and the page's preview once it is read), a video card (a YouTube or Vimeo video
// plays in the card, in the provider's privacy-enhanced player, once its still is clicked: a board
// of many videos loads no players until asked; any other address opens in a new tab; a transcript
// file can be given to it) and a document with a preview of its text (or its file's, once read).
import { useContext, useEffect, useState } from 'react';
import type { NodeProps } from '@xyflow/react';
import type { BoardFlowNode } from '../board-context';
import { DocumentIcon, LinkIcon, VideoIcon } from '../icons';
import { formatBytes } from './file-nodes';
import { labelOf, NodeFrame, str } from './node-frame';
import { TranscriptUpload } from './transcript-upload';
import { addressParts, videoOf } from './web-links';
import { findPassage, FocusPassageContext, playerAt } from '../citations';

function hostOf(url: string): string {
  return addressParts(url).host;
}

/** Only http(s) addresses become links or images on the card (the page's data is the page's word). */
const webAddress = (value: unknown): string | undefined => (typeof value === 'string' && /^https?:\/\//i.test(value) ? value : undefined);

export function UrlNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.url);
  const { host, rest } = addressParts(url);
  // The page's preview, once the service has read it (issue 29: title, description, site name, image).
  const pageTitle = str(data.title).trim();
  const description = str(data.description).trim();
  const siteName = str(data.site_name).trim();
  const image = webAddress(data.image_url);
  const [imageFailed, setImageFailed] = useState(false);
  return (
    <NodeFrame id={id} kind="url" icon={<LinkIcon />} title={labelOf(data, pageTitle || host || 'Link')} selected={selected}>
      {(pageTitle || description || image) && (
        <div className="bw-preview" data-testid={`preview-${id}`}>
          {image && !imageFailed && (
            <img
              className="bw-preview__image"
              src={image}
              alt=""
              loading="lazy"
              draggable={false}
              referrerPolicy="no-referrer"
              onError={() => setImageFailed(true)}
            />
          )}
          {siteName && <div className="bw-preview__site">{siteName}</div>}
          {pageTitle && <div className="bw-preview__title">{pageTitle}</div>}
          {description && (
            <p className="bw-preview__description">{description.length > 240 ? `${description.slice(0, 240)}…` : description}</p>
          )}
        </div>
      )}
      <a className="bw-card-link nodrag" href={url} target="_blank" rel="noopener noreferrer" title={url} draggable={false}>
        <span className="bw-card-link__address">
          <strong className="bw-card-link__host">{host}</strong>
          <span className="bw-card-link__path">{rest}</span>
        </span>
      </a>
    </NodeFrame>
  );
}

const PLAY = (
  <span className="bw-video__play" aria-hidden="true">
    <svg viewBox="0 0 24 24" width="28" height="28" fill="currentColor" aria-hidden="true">
      <path d="M8 5v14l11-7z" />
    </svg>
  </span>
);

export function VideoNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.url);
  const video = videoOf(url);
  const title = labelOf(data, 'Video');
  const [playing, setPlaying] = useState(false);
  const [thumbnailFailed, setThumbnailFailed] = useState(false);
  // A chat citation of the transcript plays the video from the cited second.
  const passage = useContext(FocusPassageContext);
  const [startAt, setStartAt] = useState<{ seconds: number; at: number }>();
  useEffect(() => {
    if (passage?.nodeId !== id || passage.seconds === undefined) return;
    setStartAt({ seconds: passage.seconds, at: passage.at });
    setPlaying(true);
  }, [passage, id]);
  const provider = video?.provider === 'vimeo' ? 'Vimeo' : video ? 'YouTube' : hostOf(url);
  return (
    <NodeFrame id={id} kind="video" icon={<VideoIcon />} title={title} selected={selected}>
      {video && playing ? (
        <iframe
          key={startAt?.at}
          className="bw-video bw-video__player nodrag nowheel"
          src={playerAt(video.embedUrl, video.provider, startAt?.seconds)}
          title={`${title}: ${provider} player`}
          // As the providers' embed codes have it; the player needs scripts, its own origin and full screen.
          allow="accelerometer; autoplay; clipboard-write; encrypted-media; fullscreen; gyroscope; picture-in-picture; web-share"
          allowFullScreen
          sandbox="allow-scripts allow-same-origin allow-presentation allow-popups allow-popups-to-escape-sandbox"
          // The page sends no Referer; YouTube's player refuses to play without the site's origin.
          referrerPolicy="strict-origin-when-cross-origin"
        />
      ) : video ? (
        <button type="button" className="bw-video nodrag" onClick={() => setPlaying(true)} aria-label={`Play ${title}`}>
          {video.thumbnailUrl && !thumbnailFailed ? (
            <img src={video.thumbnailUrl} alt="" loading="lazy" draggable={false} onError={() => setThumbnailFailed(true)} />
          ) : null}
          {PLAY}
        </button>
      ) : (
        <a className="bw-video nodrag" href={url} target="_blank" rel="noopener noreferrer" aria-label={`Watch ${title}`} draggable={false}>
          {PLAY}
        </a>
      )}
      <a className="bw-video__source nodrag" href={url} target="_blank" rel="noopener noreferrer" title={url} draggable={false}>
        {video ? `Open on ${provider}` : hostOf(url)}
      </a>
      <TranscriptUpload id={id} data={data} title={title} />
    </NodeFrame>
  );
}

export function DocumentNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const text = str(data.text);
  const url = str(data.url);
  // A document made from an uploaded file (.docx, .md, .txt, .html): its text comes when it is read.
  const file = webAddress(data.publicUrl) ?? (str(data.publicUrl).startsWith('/') ? str(data.publicUrl) : undefined);
  const empty = file ? 'Its text appears once the file is read' : 'Empty document';
  // A chat citation shows the cited passage in place of the start of the text.
  const passage = useContext(FocusPassageContext);
  const cited = passage?.nodeId === id ? findPassage(text, passage) : undefined;
  return (
    <NodeFrame id={id} kind="document" icon={<DocumentIcon />} title={labelOf(data, 'Document')} selected={selected}>
      {cited ? (
        <p className="bw-document__preview">
          {cited.start > 200 ? '…' : ''}
          {text.slice(Math.max(0, cited.start - 200), cited.start)}
          <mark className="bw-cited">{text.slice(cited.start, cited.end)}</mark>
          {text.slice(cited.end, cited.end + 200)}
          {cited.end + 200 < text.length ? '…' : ''}
        </p>
      ) : (
        <p className="bw-document__preview">{text.length > 600 ? `${text.slice(0, 600)}…` : text || empty}</p>
      )}
      <div className="bw-document__meta">
        {text.length.toLocaleString()} characters
        {typeof data.fileSize === 'number' && ` · ${formatBytes(data.fileSize)}`}
        {file && (
          <>
            {' · '}
            <a className="nodrag" href={file} target="_blank" rel="noopener noreferrer">
              Open file
            </a>
          </>
        )}
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
