// The board's search box: semantic search over the chunks of the nodes read. Each result is named
// as its card is (its title, or a note's first line), with the page of a PDF or the time of a
// video and its score; choosing one centres the canvas on its node and highlights it.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { search, type SearchHit } from './board-api';
import type { ChunkIndex } from './chunk-index';
import { SearchIcon } from './icons';
import { SEARCH_QUERY_MAX_CHARS } from '@board-workspace/limits';

type SearchState =
  | { status: 'idle' }
  | { status: 'searching'; query: string }
  | { status: 'done'; query: string; hits: SearchHit[] }
  | { status: 'failed'; message: string };

/** Where in its source a hit stands: a PDF's page, a video's time (issue 29's `start_seconds`). */
function placeOf(hit: SearchHit): string | undefined {
  if (hit.metadata.sourceType === 'pdf') return `p. ${hit.metadata.page}`;
  const start = (hit.metadata as { start_seconds?: unknown }).start_seconds;
  if (typeof start === 'number' && Number.isFinite(start)) return timeOf(start);
  return undefined;
}

/** 75 -> "1:15", 3675 -> "1:01:15". */
export function timeOf(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor(s / 3600);
  return hours > 0 ? `${hours}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

export function SearchBox(props: {
  boardId: string;
  chunks: ChunkIndex;
  nodeLabel(id: string): string | undefined;
  /** Brings the hit's node into view; a pdf hit names its page. */
  onOpen(nodeId: string, page?: number): void;
}) {
  const { boardId, chunks, nodeLabel, onOpen } = props;
  const [query, setQuery] = useState('');
  const [state, setState] = useState<SearchState>({ status: 'idle' });
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (!ref.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', close);
    return () => document.removeEventListener('pointerdown', close);
  }, [open]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    setOpen(true);
    setState({ status: 'searching', query: q });
    try {
      const hits = await search(boardId, q);
      chunks.remember(hits);
      setState({ status: 'done', query: q, hits });
    } catch (error) {
      setState({ status: 'failed', message: (error as Error).message });
    }
  }

  return (
    <div className="bw-search" ref={ref}>
      <form role="search" onSubmit={submit} className="bw-search__form">
        <SearchIcon />
        <input
          type="search"
          aria-label="Search this board"
          placeholder="Search this board…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onFocus={() => setOpen(true)}
          onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}
          maxLength={SEARCH_QUERY_MAX_CHARS}
        />
      </form>
      {open && state.status !== 'idle' && (
        <div className="bw-search__results" role="region" aria-label="Search results">
          {state.status === 'searching' && <p className="bw-muted">Searching…</p>}
          {state.status === 'failed' && (
            <p className="bw-error" role="alert">
              {state.message}
            </p>
          )}
          {state.status === 'done' && state.hits.length === 0 && (
            <p className="bw-muted">
              Nothing matches “{state.query}”. Notes, documents, PDFs, links and videos are found once read (a card says “Searchable” when
              it is).
            </p>
          )}
          {state.status === 'done' && state.hits.length > 0 && (
            <ol className="bw-hits">
              {state.hits.map((hit) => {
                const label = hit.node_id ? nodeLabel(hit.node_id) : undefined;
                const gone = !hit.node_id || label === undefined;
                const where = placeOf(hit);
                return (
                  <li key={hit.id}>
                    <button
                      type="button"
                      className="bw-hit"
                      disabled={gone}
                      title={gone ? 'Its node is no longer on the board' : undefined}
                      onClick={() => {
                        if (!hit.node_id) return;
                        setOpen(false);
                        onOpen(hit.node_id, hit.metadata.sourceType === 'pdf' ? hit.metadata.page : undefined);
                      }}
                    >
                      <span className="bw-hit__head">
                        {/* Named as its card is: its title, or a note's first line. */}
                        <span className="bw-hit__source">{label ?? hit.metadata.source}</span>
                        {where && <span className="bw-hit__page">{where}</span>}
                        <span className="bw-hit__score" title="Cosine similarity">
                          {hit.score.toFixed(2)}
                        </span>
                      </span>
                      <span className="bw-hit__snippet">{hit.content.length > 220 ? `${hit.content.slice(0, 220)}…` : hit.content}</span>
                    </button>
                  </li>
                );
              })}
            </ol>
          )}
        </div>
      )}
    </div>
  );
}
