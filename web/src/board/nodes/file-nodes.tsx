// Nodes of uploaded files: an image (the asset's url shown), a pdf (its name, page count and
// size, opening the file in a new tab), and the placeholder drawn where a file was dropped while
// it uploads (progress, then the error with Retry if it fails).
import { useContext, useState } from 'react';
import type { NodeProps } from '@xyflow/react';
import { FocusPageContext, useBoardActions, type BoardFlowNode } from '../board-context';
import { ImageIcon, PdfIcon, UploadIcon } from '../icons';
import { labelOf, NodeFrame, str } from './node-frame';

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The original file name from a storage path (`<user>/<board>/<millis>-<name>`). */
export function fileNameOf(storagePath: string): string {
  const last = storagePath.split('/').pop() ?? '';
  return last.replace(/^\d+-/, '') || 'file';
}

export function ImageNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.publicUrl);
  const name = labelOf(data, fileNameOf(str(data.storagePath)));
  const [failed, setFailed] = useState(false);
  return (
    <NodeFrame id={id} kind="image" icon={<ImageIcon />} title={name} selected={selected}>
      {failed ? (
        <div className="bw-image__missing">The image could not be loaded (the file may have been deleted).</div>
      ) : (
        <img className="bw-image" src={url} alt={name} draggable={false} onError={() => setFailed(true)} />
      )}
    </NodeFrame>
  );
}

export function PdfNode({ id, data, selected }: NodeProps<BoardFlowNode>) {
  const url = str(data.publicUrl);
  const name = labelOf(data, fileNameOf(str(data.storagePath)));
  const pages = typeof data.pageCount === 'number' ? data.pageCount : undefined;
  const size = typeof data.fileSize === 'number' ? formatBytes(data.fileSize) : '';
  // A search hit or chat source on page N: the PDF opens there (the browser's viewer reads #page=N).
  const focus = useContext(FocusPageContext);
  const page = focus?.nodeId === id ? focus.page : undefined;
  return (
    <NodeFrame id={id} kind="pdf" icon={<PdfIcon />} title={name} selected={selected}>
      <div className="bw-pdf">
        <div className="bw-pdf__sheet" aria-hidden="true">
          PDF
        </div>
        <div className="bw-pdf__meta">
          <div className="bw-pdf__facts">
            {[pages !== undefined ? `${pages} ${pages === 1 ? 'page' : 'pages'}` : 'PDF', size].filter(Boolean).join(' · ')}
          </div>
          <a className="nodrag" href={page ? `${url}#page=${page}` : url} target="_blank" rel="noopener noreferrer">
            {page ? `Open PDF at p. ${page}` : 'Open PDF'}
          </a>
        </div>
      </div>
    </NodeFrame>
  );
}

export interface UploadData extends Record<string, unknown> {
  name: string;
  progress: number;
  stage: 'uploading' | 'placing' | 'failed';
  error?: string;
}

export function UploadNode({ id, data }: NodeProps<BoardFlowNode>) {
  const { retryUpload, dismissUpload } = useBoardActions();
  const upload = data as UploadData;
  const percent = Math.round(upload.progress * 100);
  return (
    <div className="bw-node bw-node--upload" data-testid={`upload-${upload.name}`}>
      <div className="bw-node__head">
        <span className="bw-node__icon" aria-hidden="true">
          <UploadIcon />
        </span>
        <span className="bw-node__title">{upload.name}</span>
      </div>
      <div className="bw-node__body">
        {upload.stage === 'failed' ? (
          <div className="bw-upload__error" role="alert">
            <p>{upload.error}</p>
            <button type="button" className="bw-button nodrag" onClick={() => retryUpload(id)}>
              Retry
            </button>
            <button type="button" className="bw-button is-quiet nodrag" onClick={() => dismissUpload(id)}>
              Dismiss
            </button>
          </div>
        ) : (
          <>
            <div
              className="bw-progress"
              role="progressbar"
              aria-label={`Uploading ${upload.name}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
            >
              <div className="bw-progress__bar" style={{ width: `${percent}%` }} />
            </div>
            <div className="bw-upload__label">{upload.stage === 'placing' ? 'Placing on the board…' : `Uploading… ${percent}%`}</div>
          </>
        )}
      </div>
    </div>
  );
}
