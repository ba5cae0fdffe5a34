// Files dragged onto the canvas: a drop zone while they hover, and on drop they are placed where
// they were let go. Files are always taken (a file dropped on a page would otherwise replace the
// page); only the owner may add files to a board, anyone else gets a notice.
import { type DragEvent, type RefObject, useState } from 'react';
import { type Edge, useReactFlow, type XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';

const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');

export interface FileDropOptions {
  /** The canvas's element: leaving it for one of its children is not leaving. */
  wrapper: RefObject<HTMLDivElement | null>;
  canUpload: boolean;
  notify(message: string): void;
  placeFiles(files: File[], at: XYPosition): void;
}

export function useFileDrop({ wrapper, canUpload, notify, placeFiles }: FileDropOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [dropping, setDropping] = useState(false);

  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = canUpload ? 'copy' : 'none';
    if (canUpload && !dropping) setDropping(true);
  };
  const onDragLeave = (event: DragEvent) => {
    if (!wrapper.current?.contains(event.relatedTarget as Node | null)) setDropping(false);
  };
  const onDrop = (event: DragEvent) => {
    setDropping(false);
    if (!hasFiles(event)) return;
    event.preventDefault();
    if (!canUpload) {
      notify("Only the board's owner can add files to it.");
      return;
    }
    placeFiles([...event.dataTransfer.files], flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };

  return { dropping, onDragOver, onDragLeave, onDrop };
}
