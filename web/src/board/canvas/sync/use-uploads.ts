// Files placed on the board: each shows as a placeholder node with its upload's progress, then
// becomes an image, pdf or document node where it was put (a PDF with its page count, counted
// while it uploads; a .docx, .md, .txt or .html file a document whose text the service reads from
// the file when the node is read, docs/web.md). A failed upload or placement stays as a placeholder with Retry, which reuses an
// asset already uploaded, and Dismiss.
import { useCallback, useRef } from 'react';
import type { XYPosition } from '@xyflow/react';
import { type ApiNodeType, type Asset, uploadAsset } from '../../board-api';
import type { UploadData } from '../../nodes/file-nodes';
import { countPdfPages } from '../../pdf-pages';
import type { BoardFlowNode } from '../../board-context';
import { freeSpot } from '../edits/free-spot';
import type { CanvasGraph } from '../use-board-graph';

/** The room a file's card takes while it is placed (an upload's placeholder, then its node). */
const FILE_CARD = { width: 280, height: 200 };

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Files whose text the service reads into a document node (issue 29): Word, Markdown, plain text, HTML. */
const DOCUMENT_TYPES = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/markdown',
  'text/x-markdown',
  'text/plain',
  'text/html',
]);
const DOCUMENT_NAME = /\.(docx|md|markdown|txt|html?)$/i;

/** What the upload control and a drop take (the toolbar's `accept`). */
export const UPLOAD_ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,application/pdf,.docx,.md,.txt,.html';

type FileKind = 'image' | 'pdf' | 'document';

function kindOfFile(file: File): FileKind | undefined {
  if (file.type === 'application/pdf' || (!file.type && /\.pdf$/i.test(file.name))) return 'pdf';
  if (IMAGE_TYPES.has(file.type) || (!file.type && /\.(png|jpe?g|gif|webp)$/i.test(file.name))) return 'image';
  // By its name first: browsers type .md as nothing or text/plain, and .txt may be anything.
  if (DOCUMENT_NAME.test(file.name) || DOCUMENT_TYPES.has(file.type)) return 'document';
  return undefined;
}

interface Upload {
  file: File;
  position: XYPosition;
  kind: FileKind;
  asset?: Asset;
  pageCount?: number;
}

export interface UploadsOptions {
  boardId: string;
  graph: CanvasGraph;
  notify(message: string): void;
  /** Creates the file's node in place of its placeholder; throws if the service refuses. */
  placeFileNode(tempId: string, kind: ApiNodeType, position: XYPosition, data: Record<string, unknown>): Promise<void>;
}

export function useUploads({ boardId, graph, notify, placeFileNode }: UploadsOptions) {
  const uploads = useRef(new Map<string, Upload>());
  const counter = useRef(0);

  const startUpload = useCallback(
    (file: File, position: XYPosition, existingId?: string) => {
      const kind = kindOfFile(file);
      if (!kind) {
        notify(
          `${file.name}: only images (PNG, JPEG, GIF, WebP), PDFs and documents (.docx, .md, .txt, .html) can be placed on the board.`,
        );
        return;
      }
      const tempId = existingId ?? `upload-${++counter.current}`;
      const entry = uploads.current.get(tempId) ?? { file, position, kind };
      uploads.current.set(tempId, entry);
      const show = (data: Partial<UploadData>) => graph.patchNode(tempId, (n) => ({ ...n, data: { ...n.data, ...data } }));
      const fresh: UploadData = { name: file.name, progress: entry.asset ? 1 : 0, stage: entry.asset ? 'placing' : 'uploading' };
      graph.addOrUpdateNode(
        {
          id: tempId,
          type: 'uploadNode',
          position,
          data: fresh,
          draggable: false,
          selectable: false,
          deletable: false,
          connectable: false,
        },
        (n) => ({ ...n, data: fresh }),
      );
      void (async () => {
        try {
          if (!entry.asset) {
            const pages = kind === 'pdf' ? countPdfPages(file).catch(() => undefined) : Promise.resolve(undefined);
            entry.asset = await uploadAsset(boardId, file, (progress) => show({ progress })).done;
            entry.pageCount = await pages;
          }
          show({ progress: 1, stage: 'placing' });
          const asset = entry.asset;
          const data = {
            storagePath: asset.storage_path,
            publicUrl: asset.url,
            fileSize: asset.size,
            label: file.name,
            ...(entry.pageCount ? { pageCount: entry.pageCount } : {}),
          };
          await placeFileNode(tempId, kind, entry.position, data);
          uploads.current.delete(tempId);
        } catch (error) {
          show({ stage: 'failed', error: (error as Error).message });
        }
      })();
    },
    [boardId, graph, notify, placeFileNode],
  );

  /** Uploads files to be placed from `at`, each next one a little lower right. */
  // Each file at the free spot nearest `at` (its wished top-left corner), beside the others.
  const placeFiles = useCallback(
    (files: File[], at: XYPosition) => {
      const placed: BoardFlowNode[] = [];
      const centre = { x: at.x + FILE_CARD.width / 2, y: at.y + FILE_CARD.height / 2 };
      for (const file of files) {
        const spot = freeSpot([...graph.nodes(), ...placed], centre, FILE_CARD);
        placed.push({ id: `placing-${placed.length}`, position: spot, data: {}, ...FILE_CARD });
        startUpload(file, spot);
      }
    },
    [startUpload, graph],
  );

  const retryUpload = useCallback(
    (tempId: string) => {
      const entry = uploads.current.get(tempId);
      if (entry) startUpload(entry.file, entry.position, tempId);
    },
    [startUpload],
  );

  const dismissUpload = useCallback(
    (tempId: string) => {
      uploads.current.delete(tempId);
      graph.removeNode(tempId);
    },
    [graph],
  );

  return { placeFiles, retryUpload, dismissUpload };
}
