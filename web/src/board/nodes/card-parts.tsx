// The parts of a card that change how it looks: the resize handles (React Flow's NodeResizer, on
// the selected card of someone who may edit), its size and colour as stored in node_data, its
// title edited in place, and the colour swatches a card's menu and a connection's toolbar share.
import { type CSSProperties, useEffect, useRef, useState } from 'react';
import { NodeResizer } from '@xyflow/react';
import { useCardActions } from '../canvas/edits/card-actions';
import { CARD_SIZE, cardSize, colorHex, PALETTE } from './card-style';

type Size = { width: number; height: number };

/** The card's style and classes from its data (size, colour), and the resizer that changes its size. */
export function useCardLook(id: string, data: Record<string, unknown>, selected: boolean | undefined) {
  const { canEdit, resizeNode } = useCardActions();
  // While a resize is under way the card follows the handles; once let go, its data has the size.
  const [live, setLive] = useState<Size>();
  // Where the card was when the resize began: a resize from its left or top edge moves it.
  const start = useRef<{ x: number; y: number }>(undefined);
  const stored = cardSize(data);
  const size = live ?? stored;
  const hex = colorHex(data.color);
  const style: CSSProperties & Record<string, string | number | undefined> = {
    ...(size.width !== undefined ? { width: size.width } : {}),
    ...(size.height !== undefined ? { height: size.height } : {}),
    ...(hex ? { '--bw-node-accent': hex, '--bw-card-color': hex } : {}),
  };
  const classes = [size.width !== undefined ? 'is-sized-x' : '', size.height !== undefined ? 'is-sized' : '', hex ? 'has-color' : ''];
  const resizer = canEdit ? (
    <NodeResizer
      isVisible={Boolean(selected)}
      minWidth={CARD_SIZE.minWidth}
      minHeight={CARD_SIZE.minHeight}
      maxWidth={CARD_SIZE.maxWidth}
      maxHeight={CARD_SIZE.maxHeight}
      lineClassName="bw-resize-line"
      handleClassName="bw-resize-handle"
      onResizeStart={(_event, box) => {
        start.current = { x: box.x, y: box.y };
      }}
      onResize={(_event, box) => setLive({ width: box.width, height: box.height })}
      onResizeEnd={(_event, box) => {
        setLive(undefined);
        const from = start.current;
        const moved = !from || Math.abs(from.x - box.x) > 0.5 || Math.abs(from.y - box.y) > 0.5;
        resizeNode(id, box, from && moved ? { from, to: { x: box.x, y: box.y } } : undefined);
      }}
    />
  ) : null;
  return { style, classes, resizer, color: typeof data.color === 'string' ? data.color : undefined };
}

/** The card's title; a double-click (or the menu's Rename) edits it, Enter or leaving saves it. */
export function EditableTitle(props: { id: string; title: string; label: unknown; editing: boolean; onEditing(editing: boolean): void }) {
  const { id, title, label, editing, onEditing } = props;
  const { canEdit, updateNodeData } = useCardActions();
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    if (!editing) return;
    done.current = false;
    input.current?.focus();
    input.current?.select();
  }, [editing]);
  if (!editing || !canEdit) {
    return (
      <span
        className="bw-node__title"
        title={canEdit ? `${title} (double-click to rename)` : title}
        onDoubleClick={canEdit ? () => onEditing(true) : undefined}
      >
        {title}
      </span>
    );
  }
  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    onEditing(false);
    const value = input.current?.value.trim() ?? '';
    const current = typeof label === 'string' ? label : '';
    // An emptied title goes back to the card's own default (the note's first line, the site…).
    if (save && value !== current) updateNodeData(id, { label: value || null });
  };
  return (
    <input
      ref={input}
      className="bw-node__title-input nodrag"
      aria-label="Title"
      defaultValue={typeof label === 'string' ? label : title}
      maxLength={200}
      onKeyDown={(event) => {
        if (event.key === 'Enter') finish(true);
        else if (event.key === 'Escape') finish(false);
        event.stopPropagation(); // Backspace and Delete edit the title, not the board
      }}
      onBlur={() => finish(true)}
    />
  );
}

/** The palette (JSON Canvas's presets) and "No colour"; `value` is the stored colour. */
export function ColorSwatches({
  value,
  onChange,
  label,
}: {
  value: string | undefined;
  onChange(color: string | null): void;
  label: string;
}) {
  return (
    <div className="bw-swatches" role="group" aria-label={label}>
      {PALETTE.map((c) => (
        <button
          key={c.value}
          type="button"
          className="bw-swatch"
          style={{ background: c.hex }}
          aria-label={c.name}
          title={c.name}
          aria-pressed={value === c.value}
          onClick={() => onChange(c.value)}
        />
      ))}
      <button
        type="button"
        className="bw-swatch is-none"
        aria-label="No colour"
        title="No colour"
        aria-pressed={value === undefined}
        onClick={() => onChange(null)}
      />
    </div>
  );
}
