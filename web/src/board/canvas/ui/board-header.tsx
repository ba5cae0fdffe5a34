// The bar above the canvas: the board's name and access badges, the toolbar (for editors), the
// search box, who else is on the board, the save status, the history, comments and chat toggles, in one row at 1280 px;
// the export and the owner's tools are in its More menu.
import { type ReactNode, useState } from 'react';
import type { Board } from '../../board-api';
import type { ChunkIndex } from '../../chunk-index';
import { ChatIcon } from '../../icons';
import type { Outbox } from '../sync/outbox';
import { SearchBox } from '../../search-box';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query';
import { OverflowMenu } from './overflow-menu';
import { SaveIndicator } from './save-indicator';

export interface BoardHeaderProps {
  board: Board;
  isOwner: boolean;
  canEdit: boolean;
  /** The toolbar, shown to editors. */
  toolbar: ReactNode;
  chunks: ChunkIndex;
  nodeLabel(id: string): string | undefined;
  onOpenNode(id: string): void;
  tracker: Outbox;
  chatOpen: boolean;
  onToggleChat(): void;
  /** The history panel (history-panel.tsx): open or not. */
  historyOpen?: boolean;
  onToggleHistory?(): void;
  /** The Comments panel's toggle (comments/), beside History. */
  commentsButton?: ReactNode;
  /** Downloads the board as a JSON Canvas file; the button waits for it. */
  onExport(): Promise<void>;
  /** Who else is on the board (avatars). */
  presence?: ReactNode;
  /** The owner's own items (sharing, the default view), after the export in the More menu. */
  ownerTools?: ReactNode;
}

export function BoardHeader({
  board,
  isOwner,
  canEdit,
  toolbar,
  chunks,
  nodeLabel,
  onOpenNode,
  tracker,
  chatOpen,
  onToggleChat,
  historyOpen = false,
  onToggleHistory,
  commentsButton,
  onExport,
  presence,
  ownerTools,
}: BoardHeaderProps) {
  const [exporting, setExporting] = useState(false);
  // A phone gets one row (name, search, chat, More); the rest is in the More menu.
  const phone = useMediaQuery(PHONE_QUERY);
  const exportButton = (
    <button
      type="button"
      className="bw-button"
      disabled={exporting}
      title="Download this board as a JSON Canvas file"
      onClick={() => {
        setExporting(true);
        void onExport().finally(() => setExporting(false));
      }}
    >
      {exporting ? 'Exporting…' : 'Export .canvas'}
    </button>
  );
  const chatButton = (
    <button type="button" className="bw-button" aria-pressed={chatOpen} onClick={onToggleChat}>
      <ChatIcon /> Chat
    </button>
  );
  const historyButton = onToggleHistory && (
    <button type="button" className="bw-button" aria-pressed={historyOpen} onClick={onToggleHistory}>
      History
    </button>
  );
  if (phone) {
    return (
      <header className="bw-board__bar is-phone">
        <h1 className="bw-board__name" title={board.name}>
          {board.name}
        </h1>
        <SearchBox boardId={board.id} chunks={chunks} nodeLabel={nodeLabel} onOpen={onOpenNode} />
        {chatButton}
        <OverflowMenu>
          {!canEdit && <span className="bw-badge">View only</span>}
          {isOwner && board.is_public && <span className="bw-badge is-public">Public · {board.public_access_level}</span>}
          {canEdit && toolbar}
          {presence}
          {canEdit && <SaveIndicator tracker={tracker} />}
          {exportButton}
          {historyButton}
          {commentsButton}
          {isOwner && ownerTools}
        </OverflowMenu>
      </header>
    );
  }
  return (
    <header className="bw-board__bar">
      <h1 className="bw-board__name" title={board.name}>
        {board.name}
      </h1>
      {!canEdit && <span className="bw-badge">View only</span>}
      {isOwner && board.is_public && <span className="bw-badge is-public">Public · {board.public_access_level}</span>}
      {canEdit && toolbar}
      <SearchBox boardId={board.id} chunks={chunks} nodeLabel={nodeLabel} onOpen={onOpenNode} />
      <div className="bw-board__spacer" />
      {presence}
      {canEdit && <SaveIndicator tracker={tracker} />}
      {historyButton}
      {commentsButton}
      {chatButton}
      <OverflowMenu>
        {exportButton}
        {isOwner && ownerTools}
      </OverflowMenu>
    </header>
  );
}
