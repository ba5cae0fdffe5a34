// Node types and the rules for each type's `data` (DECISIONS "Nodes"): required keys, their shapes,
// and the size caps. Keys the service does not know are kept as given, because clients store
// presentation (width, height, color) there.
import { invalid } from '../errors.js';
import { toStoredJson } from './json-data.js';
import type { NodeType, NodeTypeInput } from '../contract/nodes.js';
import { NODE_TEXT_MAX_CHARS, PATH_MAX_CHARS, URL_MAX_CHARS } from '../contract/limits.js';

export type NodeData = Record<string, unknown>;

export const toNodeType = (input: NodeTypeInput): NodeType => (input === 'youtube' ? 'video' : input);

function checkUrl(data: NodeData, key: string, required: boolean): void {
  const value = data[key];
  if (value === undefined && !required) return;
  if (typeof value !== 'string') throw invalid(`data.${key} is required and must be a string`);
  let url: URL | undefined;
  try {
    url = value.length <= URL_MAX_CHARS ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw invalid(`data.${key} must be an absolute http or https URL of at most ${URL_MAX_CHARS} characters`);
  }
}

function checkText(data: NodeData): void {
  const text = data.text;
  if (typeof text !== 'string') throw invalid('data.text is required and must be a string');
  // Characters are code points; the UTF-16 length is an upper bound, so count only when needed.
  if (text.length > NODE_TEXT_MAX_CHARS && [...text].length > NODE_TEXT_MAX_CHARS) {
    throw invalid(`data.text is longer than ${NODE_TEXT_MAX_CHARS} characters`);
  }
}

function checkNonEmptyString(data: NodeData, key: string, max: number): void {
  const value = data[key];
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw invalid(`data.${key} is required and must be a string of 1..${max} characters`);
  }
}

/**
 * Checks a node's complete `data` for its type and returns it as JSON text for storage.
 *
 * The data cap (DATA_MAX_BYTES, 64 KiB) counts every key except `text`: note and document text has
 * its own cap (NODE_TEXT_MAX_CHARS, 100,000 characters), which would otherwise be unreachable.
 *
 * For pdf and image, the keys are checked for shape here; node-service.ts matches them against an
 * asset of the same board (src/assets/asset-service.ts assertNodeAsset).
 */
export function storedNodeData(type: NodeType, data: NodeData): string {
  if (data.label !== undefined && typeof data.label !== 'string') throw invalid('data.label must be a string');
  switch (type) {
    case 'video':
    case 'url':
      checkUrl(data, 'url', true);
      break;
    case 'note':
      checkText(data);
      break;
    case 'document':
      // A document made from an uploaded file has no text until the file is read (src/documents/reading/).
      if (data.storagePath === undefined || data.text !== undefined) checkText(data);
      checkUrl(data, 'url', false);
      if (data.storagePath === undefined) break;
      checkFile(data);
      break;
    case 'pdf':
    case 'image':
      checkFile(data);
      break;
  }
  const { text: _text, ...rest } = data;
  return toStoredJson(data, 'data', type === 'note' || type === 'document' ? rest : data);
}

/** The keys naming an uploaded asset: checked for shape here, against the asset in node-service.ts. */
function checkFile(data: NodeData): void {
  checkNonEmptyString(data, 'storagePath', PATH_MAX_CHARS);
  checkNonEmptyString(data, 'publicUrl', URL_MAX_CHARS);
  const size = data.fileSize;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw invalid('data.fileSize is required and must be a non-negative integer (bytes)');
  }
}

/** PATCH semantics: given keys replace, a key set to null is removed. */
export function mergeNodeData(current: NodeData, patch: NodeData): NodeData {
  // Built with fromEntries (define, not assign) so no key name can reach the prototype.
  return Object.fromEntries([
    ...Object.entries(current).filter(([key]) => !Object.hasOwn(patch, key)),
    ...Object.entries(patch).filter(([, value]) => value !== null),
  ]);
}
