// Links put on the board without the API: pasted (a paste whose text is one http(s) address, while
// the focus is not in a text field: at the centre of the view) or dropped (a link dragged from
// another tab or the address bar, as text/uri-list or text/plain: where it is let go). Each makes a
// url node, or a video node for YouTube and Vimeo addresses (use-board-edits.ts's addLink). Any
// other paste is left alone (not prevented: copied nodes are pasted elsewhere), and so are files
// (use-file-drop.ts) and drops into a text field.
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { type Edge, useReactFlow, type XYPosition } from '@xyflow/react';
import type { BoardFlowNode } from '../../board-context';
import { firstUriListEntry, singleUrl } from '../../nodes/web-links';

export interface UrlPasteOptions {
  canEdit: boolean;
  viewCentre(): XYPosition;
  addLink(url: string, at: XYPosition): Promise<void>;
  notify(message: string): void;
}

/** An element a person types into: a paste or drop there is theirs, not the board's. */
function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, [contenteditable="true"]') !== null;
}

const carriesLink = (event: DragEvent) =>
  !event.dataTransfer.types.includes('Files') &&
  (event.dataTransfer.types.includes('text/uri-list') || event.dataTransfer.types.includes('text/plain'));

export function useUrlPaste({ canEdit, viewCentre, addLink, notify }: UrlPasteOptions) {
  const flow = useReactFlow<BoardFlowNode, Edge>();
  const [dialogOpen, setDialogOpen] = useState(false);
  const latest = useRef({ canEdit, viewCentre, addLink, notify, dialogOpen });
  latest.current = { canEdit, viewCentre, addLink, notify, dialogOpen };

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const { canEdit, viewCentre, addLink, notify, dialogOpen } = latest.current;
      if (!canEdit || dialogOpen || event.defaultPrevented) return;
      if (isTextField(event.target) || isTextField(document.activeElement)) return;
      const url = singleUrl(event.clipboardData?.getData('text/plain'));
      if (!url) return;
      event.preventDefault();
      addLink(url, viewCentre()).catch((error: Error) => notify(error.message));
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, []);

  const onDragOver = (event: DragEvent) => {
    if (!canEdit || !carriesLink(event) || isTextField(event.target)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };

  const onDrop = (event: DragEvent) => {
    if (!canEdit || !carriesLink(event) || isTextField(event.target)) return;
    const url = firstUriListEntry(event.dataTransfer.getData('text/uri-list')) ?? singleUrl(event.dataTransfer.getData('text/plain'));
    if (!url) return;
    event.preventDefault();
    const at = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
    addLink(url, at).catch((error: Error) => notify(error.message));
  };

  return {
    onDragOver,
    onDrop,
    /** The toolbar's "Add link" dialog. */
    dialogOpen,
    openDialog: () => setDialogOpen(true),
    closeDialog: () => setDialogOpen(false),
  };
}
