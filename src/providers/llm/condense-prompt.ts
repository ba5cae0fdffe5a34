// The instruction remote models get to condense older turns into memory entries, and the parser of
// their answer (one fact per line). Shared by the openai and anthropic providers.
import type { ChatTurn } from './chat-model.js';

export const CONDENSE_SYSTEM =
  'You condense the older part of a conversation into memory for later turns. ' +
  'Write at most 5 short, self-contained facts, one per line, no numbering, each under 200 characters: ' +
  'what the user wants, what was established, names, numbers and decisions. Write nothing else.';

export const condenseInput = (turns: ChatTurn[]): string =>
  turns.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.content}`).join('\n\n');

export function parseFacts(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((line) => line.length > 0)
    .slice(0, 5)
    .map((line) => line.slice(0, 300));
}
