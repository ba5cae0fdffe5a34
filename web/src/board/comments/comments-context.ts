// What the canvas's cards need of the comments (read by node-frame.tsx): each card's open threads
// and unread mark for its pin, and the actions its pin and its menu's "Comment" start.
import { createContext, useContext } from 'react';
import type { CardComments } from './use-comments';

export interface CardCommentActions {
  /** The board's `permissions.comment`: "Comment" is offered. */
  canComment: boolean;
  /** Opens the panel on the card's threads. */
  openCard(nodeId: string): void;
  /** Opens the panel on a new thread on the card. */
  commentOn(nodeId: string): void;
}

export const CardCommentsContext = createContext<Record<string, CardComments>>({});
export const CardCommentActionsContext = createContext<CardCommentActions>({
  canComment: false,
  openCard: () => {},
  commentOn: () => {},
});

export const useCardCommentActions = () => useContext(CardCommentActionsContext);
