// How a card or a connection looks, as stored in its node_data / edge_data under the keys JSON
// Canvas uses (docs/json-canvas.md, src/interchange/json-canvas.ts), so an export keeps them:
// `width` and `height` (canvas units) and `color`, one of the format's six presets "1".."6" or a
// "#rrggbb" hex colour.

export interface PaletteColor {
  value: string;
  name: string;
  hex: string;
}

/** JSON Canvas's preset colours, in its order (red, orange, yellow, green, cyan, purple). */
export const PALETTE: PaletteColor[] = [
  { value: '1', name: 'Red', hex: '#ef4444' },
  { value: '2', name: 'Orange', hex: '#f97316' },
  { value: '3', name: 'Yellow', hex: '#eab308' },
  { value: '4', name: 'Green', hex: '#22c55e' },
  { value: '5', name: 'Cyan', hex: '#06b6d4' },
  { value: '6', name: 'Purple', hex: '#a855f7' },
];

const HEX = /^#[0-9a-fA-F]{6}$/;

/** The colour to draw for a stored `color` (a preset or a hex), if it is one. */
export function colorHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return PALETTE.find((c) => c.value === value)?.hex ?? (HEX.test(value) ? value : undefined);
}

/** Limits of a card's size when resized (and of a stored size when drawn). */
export const CARD_SIZE = { minWidth: 180, minHeight: 90, maxWidth: 1600, maxHeight: 1600 };

const dimension = (value: unknown, min: number, max: number): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(max, Math.max(min, Math.round(value))) : undefined;

/** The size stored on a card, within the limits; either side may be missing (the card's own size). */
export function cardSize(data: Record<string, unknown>): { width?: number; height?: number } {
  return {
    width: dimension(data.width, CARD_SIZE.minWidth, CARD_SIZE.maxWidth),
    height: dimension(data.height, CARD_SIZE.minHeight, CARD_SIZE.maxHeight),
  };
}
