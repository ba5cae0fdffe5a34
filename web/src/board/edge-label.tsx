// What a connection shows at its middle: its label (edge_data.label, as JSON Canvas export and
// import have it), edited in place after a double-click on the connection or its label, and, while
// the connection is selected by someone who may edit, a small toolbar to label it and colour it
// (edge_data.color). The label is drawn as HTML over the canvas through React Flow's
// EdgeLabelRenderer; the toolbar in the board's popover layer, above the notices, at the label.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Placement } from '@floating-ui/react-dom';
import { EdgeLabelRenderer, useStore } from '@xyflow/react';
import { useCardActions } from './canvas/edits/card-actions';
import { InPopoverLayer, useAnchoredPopover } from './canvas/ui/popover-layer';
import { ColorSwatches } from './nodes/card-parts';
import { colorHex } from './nodes/card-style';
import { type Rect, type ToolbarSide, toolbarSide } from './canvas/layout/toolbar-place';

export function EdgeAdornment(props: {
  id: string;
  x: number;
  y: number;
  data: Record<string, unknown> | undefined;
  selected?: boolean;
  /** The cards it joins: its toolbar goes where it covers neither (canvas/layout/toolbar-place.ts). */
  cards?: Rect[];
}) {
  const { id, x, y, data, selected, cards } = props;
  const { canEdit, editingEdge, editEdgeLabel, updateEdgeData } = useCardActions();
  const label = typeof data?.label === 'string' ? data.label : '';
  const color = typeof data?.color === 'string' ? data.color : undefined;
  const editing = canEdit && editingEdge === id;
  const tools = canEdit && selected && !editing;
  const doubleClickRef = useOwnDoubleClick(canEdit ? () => editEdgeLabel(id) : undefined);
  // The label's element, which the toolbar is placed at.
  const [anchor, setAnchor] = useState<HTMLDivElement | null>(null);
  const labelRef = useCallback(
    (element: HTMLDivElement | null) => {
      doubleClickRef(element);
      setAnchor(element);
    },
    [doubleClickRef],
  );
  if (!label && !editing && !tools) return null;
  const hex = colorHex(color);
  return (
    <EdgeLabelRenderer>
      <div
        ref={labelRef}
        className="bw-edge-label nodrag nopan"
        data-testid={`edge-label-${id}`}
        style={{ transform: `translate(-50%, -50%) translate(${x}px, ${y}px)` }}
      >
        {editing ? (
          <LabelInput
            initial={label}
            onDone={(value) => {
              editEdgeLabel(undefined);
              if (value !== undefined && value !== label) updateEdgeData(id, { label: value || null });
            }}
          />
        ) : (
          label && (
            <span className="bw-edge-label__text" style={hex ? { borderColor: hex } : undefined}>
              {label}
            </span>
          )
        )}
      </div>
      {tools && anchor && <EdgeTools id={id} anchor={anchor} x={x} y={y} cards={cards ?? []} label={label} color={color} />}
    </EdgeLabelRenderer>
  );
}

const PLACEMENT: Record<ToolbarSide, Placement> = { below: 'bottom', above: 'top', right: 'right', left: 'left' };

/** The selected connection's toolbar, on the side of its middle where it covers neither card. */
function EdgeTools(props: { id: string; anchor: Element; x: number; y: number; cards: Rect[]; label: string; color: string | undefined }) {
  const { id, anchor, x, y, cards, label, color } = props;
  const { editEdgeLabel, updateEdgeData } = useCardActions();
  // Only the shown toolbar follows the zoom: its room on the canvas is its size on screen over it.
  const zoom = useStore((state) => state.transform[2]);
  const side = toolbarSide(x, y, cards, zoom);
  // Not flipped: the side is chosen to keep the cards' titles clear (toolbar-place.ts).
  const popover = useAnchoredPopover(PLACEMENT[side], { gap: 10, flip: false, reference: anchor });
  return (
    <InPopoverLayer>
      <div
        className="bw-edge-tools"
        role="toolbar"
        aria-label="Connection tools"
        ref={popover.refs.setFloating}
        style={popover.floatingStyles}
      >
        <button type="button" className="bw-button is-quiet" onClick={() => editEdgeLabel(id)}>
          {label ? 'Edit label' : 'Add label'}
        </button>
        <ColorSwatches label="Connection colour" value={color} onChange={(c) => updateEdgeData(id, { color: c })} />
      </div>
    </InPopoverLayer>
  );
}

/**
 * A double-click on the label (or the tools) is the label's own: it is stopped where it happens,
 * because React Flow's pane would otherwise also zoom on it (its "nopan" check does not hold a
 * double-click back inside the edge label layer). Outside text fields and buttons, it edits the label.
 */
function useOwnDoubleClick(edit: (() => void) | undefined) {
  const latest = useRef(edit);
  latest.current = edit;
  const cleanup = useRef<() => void>(undefined);
  return useCallback((element: HTMLDivElement | null) => {
    cleanup.current?.();
    cleanup.current = undefined;
    if (!element) return;
    const listener = (event: MouseEvent) => {
      event.stopPropagation();
      if (!(event.target as Element).closest('input, button')) latest.current?.();
    };
    element.addEventListener('dblclick', listener);
    cleanup.current = () => element.removeEventListener('dblclick', listener);
  }, []);
}

/** Enter or leaving saves (`onDone(text)`), Escape cancels (`onDone(undefined)`). */
function LabelInput({ initial, onDone }: { initial: string; onDone(value: string | undefined): void }) {
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    onDone(save ? (input.current?.value.trim() ?? '') : undefined);
  };
  return (
    <input
      ref={input}
      className="bw-edge-label__input"
      aria-label="Connection label"
      defaultValue={initial}
      maxLength={200}
      placeholder="Label"
      onKeyDown={(event) => {
        if (event.key === 'Enter') finish(true);
        else if (event.key === 'Escape') finish(false);
        event.stopPropagation(); // Backspace edits the label, not the board
      }}
      onBlur={() => finish(true)}
    />
  );
}
