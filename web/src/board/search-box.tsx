// The board's search box: semantic search over the chunks of nodes made searchable. Each result
// shows its score, source and page; choosing one centres the canvas on its node and highlights it.
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
            <p className="bw-muted">Nothing matches “{state.query}”. Only nodes made searchable (node menu → Make searchable) are found.</p>
          )}
          {state.status === 'done' && state.hits.length > 0 && (
            <ol className="bw-hits">
              {state.hits.map((hit) => {
                const label = hit.node_id ? nodeLabel(hit.node_id) : undefined;
                const gone = !hit.node_id || label === undefined;
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
                        <span className="bw-hit__source">{hit.metadata.source}</span>
                        <span className="bw-hit__page">p. {hit.metadata.page}</span>
                        <span className="bw-hit__score" title="Cosine similarity">
                          {hit.score.toFixed(2)}
                        </span>
                      </span>
                      {label !== undefined && label !== hit.metadata.source && <span className="bw-hit__node">in {label}</span>}
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
