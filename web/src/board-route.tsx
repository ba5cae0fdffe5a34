// Mount point of the board page at /boards/:id (also someone else's public board opened by its
// link). app.tsx loads this module lazily, so the canvas (@xyflow/react) and its CSS are not part
// of the first download: the sign-in, boards and API keys pages stay small.
export { BoardPage as BoardRoute } from './board/board-page';
