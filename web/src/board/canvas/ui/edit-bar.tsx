// A small bar at the canvas's top-left with undo, redo, duplicate (for someone who may edit) and
// the keyboard shortcuts list: the keys' counterparts for a pointer or a touch screen. It sits on
// the canvas rather than in the header, so the header keeps to one row.
import { Panel } from '@xyflow/react';
import type { ReactNode } from 'react';
import './editing.css';
import { DuplicateIcon, KeyboardIcon, RedoIcon, UndoIcon } from '../../icons';

export interface EditBarProps {
  canEdit: boolean;
  canUndo: boolean;
  canRedo: boolean;
  canDuplicate: boolean;
  onUndo(): void;
  onRedo(): void;
  onDuplicate(): void;
  onShowShortcuts(): void;
  /** More editing buttons (the frame tools: canvas/layout/frame-tools.tsx). */
  children?: ReactNode;
}

export function EditBar(props: EditBarProps) {
  const { canEdit, canUndo, canRedo, canDuplicate, onUndo, onRedo, onDuplicate, onShowShortcuts, children } = props;
  return (
    <Panel position="top-left" className="bw-edit-bar" role="toolbar" aria-label="Editing">
      {canEdit && (
        <>
          <button type="button" className="bw-icon-button" aria-label="Undo" title="Undo (Ctrl+Z)" disabled={!canUndo} onClick={onUndo}>
            <UndoIcon />
          </button>
          <button
            type="button"
            className="bw-icon-button"
            aria-label="Redo"
            title="Redo (Ctrl+Shift+Z)"
            disabled={!canRedo}
            onClick={onRedo}
          >
            <RedoIcon />
          </button>
          <button
            type="button"
            className="bw-icon-button"
            aria-label="Duplicate selected"
            title="Duplicate (Ctrl+D)"
            disabled={!canDuplicate}
            onClick={onDuplicate}
          >
            <DuplicateIcon />
          </button>
          {children}
        </>
      )}
      <button
        type="button"
        className="bw-icon-button"
        aria-label="Keyboard shortcuts"
        title="Keyboard shortcuts (?)"
        onClick={onShowShortcuts}
      >
        <KeyboardIcon />
      </button>
    </Panel>
  );
}
