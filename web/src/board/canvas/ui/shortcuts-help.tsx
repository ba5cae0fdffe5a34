// The keyboard shortcuts panel, opened with `?` or the toolbar's "Shortcuts" button and closed
// with Escape, its close button or a click outside. It lists every shortcut the canvas knows
// (use-editing-shortcuts.ts, navigation/use-canvas-navigation.ts, navigation/use-card-keys.tsx and React
// Flow's own Delete/Backspace).
import { useEffect, useRef } from 'react';
import './editing.css';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? '⌘' : 'Ctrl';

export const SHORTCUTS: { keys: string[]; what: string }[] = [
  { keys: [`${MOD}+Z`], what: 'Undo your last change' },
  { keys: [`${MOD}+Shift+Z`, `${MOD}+Y`], what: 'Redo' },
  { keys: [`${MOD}+A`], what: 'Select all nodes' },
  { keys: ['Drag on empty canvas'], what: 'Select the nodes in a rectangle' },
  { keys: ['Shift+click', `${MOD}+click`], what: 'Add a node to the selection, or take it out' },
  {
    keys: [`${MOD}+C`, `${MOD}+X`, `${MOD}+V`],
    what: 'Copy, cut, paste nodes (with the connections between them; also into another board)',
  },
  { keys: [`${MOD}+D`], what: 'Duplicate the selection' },
  { keys: [`${MOD}+Alt+G`], what: 'Put a frame around the selection' },
  { keys: ['Alt+drag'], what: 'Move without snapping to other cards or the grid' },
  { keys: ['Delete', 'Backspace'], what: 'Delete the selection' },
  { keys: ['←', '↑', '→', '↓'], what: 'Move the selection (with Shift: further)' },
  { keys: ['Tab', 'Shift+Tab'], what: 'Go to the next or previous card, in reading order (at every zoom)' },
  { keys: ['←', '↑', '→', '↓'], what: 'On a card that is not selected: go to the nearest card that way' },
  { keys: ['Enter'], what: 'On a card: select it and go into its text (zooming in far out); Escape comes back' },
  { keys: ['Double-click on empty canvas'], what: 'Add a note there' },
  { keys: ['Drag from a dot onto a card'], what: 'Connect two nodes' },
  { keys: ['Space+drag', 'Middle or right drag'], what: 'Pan the canvas (touch: drag)' },
  { keys: ['Scroll', 'Two-finger swipe'], what: 'Pan the canvas (Shift+scroll: sideways)' },
  { keys: [`${MOD}+scroll`, 'Pinch'], what: 'Zoom around the pointer' },
  { keys: [`${MOD}+=`, `${MOD}+-`], what: 'Zoom in, zoom out' },
  { keys: [`${MOD}+0`], what: 'Zoom to 100%' },
  { keys: ['Shift+1'], what: 'Fit every card in view' },
  { keys: ['Shift+2'], what: 'Fit the selection in view' },
  { keys: ['?'], what: 'Show or hide this list' },
  { keys: ['Escape'], what: 'Close this list' },
];

export function ShortcutsHelp({ onClose }: { onClose(): void }) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        onClose();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="bw-shortcuts-backdrop" onPointerDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className="bw-shortcuts" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" tabIndex={-1} ref={panel}>
        <div className="bw-shortcuts__head">
          <h2>Keyboard shortcuts</h2>
          <button type="button" className="bw-icon-button" aria-label="Close shortcuts" onClick={onClose}>
            ×
          </button>
        </div>
        <dl className="bw-shortcuts__list">
          {SHORTCUTS.map((s) => (
            <div key={s.what} className="bw-shortcuts__row">
              <dt>
                {s.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 && ' or '}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </dt>
              <dd>{s.what}</dd>
            </div>
          ))}
        </dl>
      </div>
    </div>
  );
}
