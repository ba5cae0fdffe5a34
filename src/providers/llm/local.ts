// The default chat model: a grounded extractive answerer that needs no network and no download. It
// answers from the board's own content only (the chat's node first, then retrieved chunks and the
// board's notes), quotes the sentences most relevant to the question, names their sources, and
// says plainly when the board holds nothing relevant. Tokens are counted with a real tokenizer.
import { tokenCounter } from '../../text/tokens.js';
import { rankSentences, sentences } from '../../text/relevance.js';
import { type CitablePassage, locate } from '../../text/citations.js';
import type { ChatEvent, ChatModel, ChatRequest, ChatTurn, GroundingPassage } from './chat-model.js';

export const LOCAL_MODEL_ID = 'local-extractive-1';
export const NOTHING_RELEVANT = 'The board holds nothing relevant to that question, so I cannot answer it from the board.';
const MAX_QUOTES = 3;

function abortError(): Error {
  const error = new Error('The reply was aborted');
  error.name = 'AbortError';
  return error;
}

/**
 * The answer text, the chunk ids it quotes, and the quote behind each marker. A quoted sentence of
 * a citable chunk (or of a note whose citable chunk holds it) ends with the chunk's marker `[n]`,
 * n its number in the prompt (`citable`).
 */
export function composeAnswer(
  question: string,
  passages: GroundingPassage[],
  citable: CitablePassage[] = [],
): { text: string; sources: string[]; quotes: Map<number, string> } {
  const quotes = new Map<number, string>();
  const ranked = rankSentences(
    question,
    passages.map((passage, index) => ({ item: { passage, index }, text: passage.text, boost: passage.primary ? 1.5 : 1 })),
  );
  if (ranked.length === 0) return { text: NOTHING_RELEVANT, sources: [], quotes };
  const best = ranked[0]!.score;
  const seen = new Set<string>();
  const picked = ranked.filter((r) => r.score >= best * 0.5 && !seen.has(r.text) && seen.add(r.text)).slice(0, MAX_QUOTES);
  // Quotes read in board order (source, then position), not in score order.
  picked.sort((a, b) => a.item.index - b.item.index || a.position - b.position);
  const lines = picked.map((p) => {
    const n = passageNumber(p.item.passage, p.text, citable);
    if (n !== undefined && !quotes.has(n)) quotes.set(n, p.text);
    return `- "${p.text}" (${p.item.passage.source})${n === undefined ? '' : ` [${n}]`}`;
  });
  const names = [...new Set(picked.map((p) => p.item.passage.source))];
  const sources = [...new Set(picked.map((p) => p.item.passage.chunkId).filter((id): id is string => id !== null))];
  const text = `From the board:\n${lines.join('\n')}\n\nSources: ${names.join('; ')}.`;
  return { text, sources, quotes };
}

/** The prompt number of the chunk a quoted sentence stands in: its own, or a chunk of its note holding it. */
function passageNumber(passage: GroundingPassage, sentence: string, citable: CitablePassage[]): number | undefined {
  const index =
    passage.chunkId !== null
      ? citable.findIndex((c) => c.chunkId === passage.chunkId)
      : citable.findIndex((c) => c.nodeId !== null && c.nodeId === passage.nodeId && locate(sentence, c.content) !== undefined);
  return index >= 0 ? index + 1 : undefined;
}

/** Splits text into word-sized deltas that concatenate back to it exactly. */
export function deltas(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [text];
}

export class LocalChatModel implements ChatModel {
  readonly id = LOCAL_MODEL_ID;

  async *stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent> {
    const question = request.messages.at(-1)?.content ?? '';
    const answer = composeAnswer(question, request.passages, request.citable);
    for (const [passage, quote] of answer.quotes) yield { type: 'quote', passage, quote };
    for (const piece of deltas(answer.text)) {
      if (signal.aborted) throw abortError();
      yield { type: 'delta', content: piece };
    }
    const countTokens = await tokenCounter();
    const prompt = countTokens(request.system) + request.messages.reduce((sum, m) => sum + countTokens(m.content), 0);
    const completion = countTokens(answer.text);
    yield {
      type: 'done',
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      finish_reason: 'stop',
      sources: answer.sources,
    };
  }

  /** Extractive memory: the first sentence of each older question, with the start of its answer. */
  async condense(turns: ChatTurn[]): Promise<string[]> {
    const facts: string[] = [];
    const first = (text: string) => (sentences(text)[0] ?? text).slice(0, 160);
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i]!;
      if (turn.role !== 'user') continue;
      const next = turns[i + 1];
      facts.push(
        next?.role === 'assistant'
          ? `User asked: ${first(turn.content)} Answer: ${first(next.content)}`
          : `User said: ${first(turn.content)}`,
      );
    }
    return facts.slice(-5);
  }
}
