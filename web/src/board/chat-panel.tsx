// The chat panel: the caller's threads on this board (all of them, or those of the selected
// node), a thread's messages, and a question whose reply streams in as it is written (POST with
// `stream: true`, read as text/event-stream), with a Stop button that aborts the request. Each
// answer lists its sources (the chunk ids in metadata.sources, resolved to their nodes) as
// buttons that bring the node into view. A question that could not be sent goes back into the box.
// The markers `[n]` of a reply are buttons that show the cited passage where it stands (citations.ts);
// "Ask about this selection" starts a thread limited to the selected nodes (node_ids), and "Add to
// board" makes a reply a note joined by edges to the nodes it cites.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../lib/api-error';
import { createChat, latestMessage, listChats, listMessages, streamMessage, updateChatTitle, type Chat, type Message } from './board-api';
import type { ChunkIndex, ChunkInfo } from './chunk-index';
import { type Citation, citationsOf, splitMarkers, withoutMarkers } from './citations';
import { ChatIcon, PlusIcon } from './icons';
import { CHAT_MESSAGE_MAX_CHARS } from '@board-workspace/limits';

interface UiMessage extends Message {
  streaming?: boolean;
  stopped?: boolean;
  error?: string;
}

const DEFAULT_TITLE = 'New chat';
/** The contract's bound on node_ids. */
const CHAT_SELECTION_MAX = 100;

function sourcesOf(message: Message): string[] {
  const sources = (message.metadata as { sources?: unknown } | null)?.sources;
  return Array.isArray(sources) ? sources.filter((s): s is string => typeof s === 'string') : [];
}

function when(timestamp: string | null): string {
  if (!timestamp) return 'no messages yet';
  const date = new Date(timestamp);
  return date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export interface ChatPanelProps {
  boardId: string;
  /** The node selected on the canvas (its threads can be listed), if exactly one is. */
  selectedNode?: { id: string; label: string };
  nodeLabel(id: string): string | undefined;
  /** Brings a node into view; a pdf source names its page (the card then opens the PDF there). */
  onOpenNode(id: string, page?: number): void;
  chunks: ChunkIndex;
  /** The ids of the nodes selected on the canvas. */
  selection: string[];
  /** Shows a cited passage where it stands. */
  onOpenCitation(citation: Citation): void;
  /** Makes a reply a note joined to the nodes it cites; absent when the board is read-only. */
  onAddToBoard?(text: string, nodeIds: string[]): void;
  onClose(): void;
}

export function ChatPanel(props: ChatPanelProps) {
  const { boardId, selectedNode, nodeLabel, onOpenNode, chunks, selection, onOpenCitation, onAddToBoard, onClose } = props;
  const [scope, setScope] = useState<'board' | 'node'>(selectedNode ? 'node' : 'board');
  const [chats, setChats] = useState<Chat[]>();
  const [listError, setListError] = useState<string>();
  const [openChat, setOpenChat] = useState<Chat>();
  const [creating, setCreating] = useState(false);

  const reload = useCallback(async () => {
    setListError(undefined);
    try {
      setChats(await listChats(boardId));
    } catch (error) {
      setListError((error as Error).message);
    }
  }, [boardId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  // Choosing "Chat about this" on a node (or selecting one) shows that node's threads.
  const selectedId = selectedNode?.id;
  useEffect(() => {
    setScope(selectedId !== undefined ? 'node' : 'board');
  }, [selectedId]);

  const nodeScope = scope === 'node' && selectedNode ? selectedNode : undefined;
  const shown = useMemo(() => (chats ?? []).filter((c) => !nodeScope || c.node_id === nodeScope.id), [chats, nodeScope]);

  async function newThread(nodeIds?: string[]) {
    setCreating(true);
    setListError(undefined);
    try {
      const title = nodeIds
        ? `About ${nodeIds.length} selected nodes`
        : nodeScope
          ? `About ${nodeScope.label}`.slice(0, 200)
          : DEFAULT_TITLE;
      const chat = await createChat(boardId, title, nodeIds ? null : (nodeScope?.id ?? null), nodeIds);
      setChats((list) => [chat, ...(list ?? [])]);
      setOpenChat(chat);
    } catch (error) {
      setListError((error as Error).message);
    } finally {
      setCreating(false);
    }
  }

  return (
    <aside className="bw-chat" aria-label="Chat">
      <header className="bw-chat__head">
        <ChatIcon />
        <h2>Chat</h2>
        <button type="button" className="bw-icon-button" aria-label="Close chat" onClick={onClose}>
          ×
        </button>
      </header>
      {openChat ? (
        <Thread
          key={openChat.id}
          boardId={boardId}
          chat={openChat}
          nodeLabel={nodeLabel}
          onOpenNode={onOpenNode}
          onOpenCitation={onOpenCitation}
          onAddToBoard={onAddToBoard}
          chunks={chunks}
          onBack={() => {
            setOpenChat(undefined);
            void reload();
          }}
          onRenamed={(title) => setChats((list) => list?.map((c) => (c.id === openChat.id ? { ...c, title } : c)))}
        />
      ) : (
        <div className="bw-chat__threads">
          <div className="bw-segmented" role="group" aria-label="Threads to show">
            <button type="button" aria-pressed={!nodeScope} onClick={() => setScope('board')}>
              Whole board
            </button>
            <button
              type="button"
              aria-pressed={!!nodeScope}
              disabled={!selectedNode}
              onClick={() => setScope('node')}
              title={selectedNode ? undefined : 'Select a node on the canvas'}
            >
              {selectedNode ? selectedNode.label : 'Selected node'}
            </button>
          </div>
          <button type="button" className="bw-button is-primary bw-chat__new" onClick={() => void newThread()} disabled={creating}>
            <PlusIcon /> {nodeScope ? 'New thread about this node' : 'New thread'}
          </button>
          {selection.length > 1 && (
            <button
              type="button"
              className="bw-button bw-chat__new"
              onClick={() => void newThread(selection.slice(0, CHAT_SELECTION_MAX))}
              disabled={creating}
              title={`A thread whose answers draw only on the ${selection.length} selected nodes`}
            >
              Ask about this selection ({Math.min(selection.length, CHAT_SELECTION_MAX)} nodes)
            </button>
          )}
          {listError && (
            <p className="bw-error" role="alert">
              {listError}{' '}
              <button type="button" className="bw-link-button" onClick={() => void reload()}>
                Retry
              </button>
            </p>
          )}
          {!chats && !listError && <p className="bw-muted">Loading threads…</p>}
          {chats && shown.length === 0 && (
            <p className="bw-muted">{nodeScope ? 'No threads about this node yet.' : 'No threads on this board yet.'}</p>
          )}
          <ul className="bw-thread-list">
            {shown.map((chat) => (
              <li key={chat.id}>
                <button type="button" className="bw-thread" onClick={() => setOpenChat(chat)}>
                  <span className="bw-thread__title">{chat.title}</span>
                  <span className="bw-thread__meta">
                    {chat.node_id && nodeLabel(chat.node_id) !== undefined ? `${nodeLabel(chat.node_id)} · ` : ''}
                    {chat.node_ids ? `${chat.node_ids.length} selected nodes · ` : ''}
                    {when(chat.last_message_at)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </aside>
  );
}

function Thread(props: {
  boardId: string;
  chat: Chat;
  nodeLabel(id: string): string | undefined;
  /** Brings a node into view; a pdf source names its page (the card then opens the PDF there). */
  onOpenNode(id: string, page?: number): void;
  onOpenCitation(citation: Citation): void;
  onAddToBoard?(text: string, nodeIds: string[]): void;
  chunks: ChunkIndex;
  onBack(): void;
  onRenamed(title: string): void;
}) {
  const { boardId, chat, nodeLabel, onOpenNode, onOpenCitation, onAddToBoard, chunks, onBack, onRenamed } = props;
  const [messages, setMessages] = useState<UiMessage[]>();
  const [loadError, setLoadError] = useState<string>();
  const [sendError, setSendError] = useState<string>();
  const [draft, setDraft] = useState('');
  const [sources, setSources] = useState<Map<string, ChunkInfo>>(new Map());
  const [streaming, setStreaming] = useState<AbortController>();
  const [title, setTitle] = useState(chat.title);
  const listRef = useRef<HTMLOListElement>(null);
  const counter = useRef(0);

  const resolveSources = useCallback(
    async (list: Message[]) => {
      const ids = [...new Set(list.flatMap(sourcesOf))];
      if (ids.length === 0) return;
      try {
        const found = await chunks.resolve(ids);
        setSources((old) => new Map([...old, ...found]));
      } catch {
        // Sources are a convenience: the answer stands without them.
      }
    },
    [chunks],
  );

  const load = useCallback(async () => {
    setLoadError(undefined);
    try {
      const list = await listMessages(boardId, chat.id);
      setMessages(list);
      void resolveSources(list);
    } catch (error) {
      setLoadError((error as Error).message);
    }
  }, [boardId, chat.id, resolveSources]);

  useEffect(() => {
    void load();
  }, [load]);

  // Leaving the thread (or the page) ends a reply still streaming.
  useEffect(() => () => streaming?.abort(), [streaming]);

  // Follow the reply as it grows, unless the person scrolled up to read.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each change of `messages`, when the list has grown.
  useEffect(() => {
    const list = listRef.current;
    if (list && list.scrollHeight - list.scrollTop - list.clientHeight < 120) list.scrollTop = list.scrollHeight;
  }, [messages]);

  async function send(event?: FormEvent) {
    event?.preventDefault();
    const content = draft.trim();
    if (!content || streaming || !messages) return;
    setSendError(undefined);
    const n = ++counter.current;
    const now = new Date().toISOString();
    const userId = `local-question-${n}`;
    const replyId = `local-reply-${n}`;
    const first = messages.length === 0;
    setDraft('');
    setMessages((list) => [
      ...(list ?? []),
      { id: userId, role: 'user', content, model: null, created_at: now, metadata: null },
      { id: replyId, role: 'assistant', content: '', model: null, created_at: now, metadata: null, streaming: true },
    ]);
    const patch = (change: (m: UiMessage) => UiMessage) => setMessages((list) => list?.map((m) => (m.id === replyId ? change(m) : m)));
    const controller = new AbortController();
    setStreaming(controller);
    let completed: Message['metadata'] | undefined;
    try {
      const outcome = await streamMessage(boardId, chat.id, content, controller.signal, {
        onDelta: (text) => patch((m) => ({ ...m, content: m.content + text })),
        onComplete: (message) => {
          completed = message.metadata ?? undefined;
          patch((m) => ({
            ...m,
            content: message.content,
            model: message.model,
            created_at: message.created_at,
            metadata: message.metadata ?? null,
            streaming: false,
          }));
        },
        onError: (message) => patch((m) => ({ ...m, streaming: false, error: message })),
      });
      if (outcome === 'cut') patch((m) => ({ ...m, streaming: false, error: 'The reply ended before it was complete.' }));
      if (outcome === 'complete') {
        // message.complete carries the metadata; from a service without it, the stored reply's.
        let metadata = completed;
        if (!metadata) {
          const stored = await latestMessage(boardId, chat.id).catch(() => undefined);
          if (stored?.role === 'assistant' && stored.metadata) {
            metadata = stored.metadata;
            patch((m) => ({ ...m, metadata: stored.metadata }));
          }
        }
        if (metadata) void resolveSources([{ metadata } as Message]);
        if (first && title === DEFAULT_TITLE) {
          const named = content.replace(/\s+/g, ' ').slice(0, 60);
          updateChatTitle(boardId, chat.id, named).then(
            () => {
              setTitle(named);
              onRenamed(named);
            },
            () => undefined,
          );
        }
      }
    } catch (error) {
      if (controller.signal.aborted) {
        patch((m) => ({ ...m, streaming: false, stopped: true }));
      } else {
        // Refused or cut off: the question goes back into the box so nothing typed is lost.
        setMessages((list) => list?.filter((m) => m.id !== userId && m.id !== replyId));
        setDraft((current) => (current ? `${content}\n${current}` : content));
        setSendError(error instanceof ApiError ? error.message : `The message was not sent: ${(error as Error).message}`);
      }
    } finally {
      setStreaming(undefined);
    }
  }

  return (
    <div className="bw-thread-view">
      <div className="bw-thread-view__head">
        <button
          type="button"
          className="bw-link-button"
          onClick={onBack}
          disabled={!!streaming}
          title={streaming ? 'Stop the reply first' : undefined}
        >
          ← All threads
        </button>
        <h3 title={title}>{title}</h3>
        {chat.node_id && nodeLabel(chat.node_id) !== undefined && (
          <button type="button" className="bw-chip" onClick={() => onOpenNode(chat.node_id!)}>
            {nodeLabel(chat.node_id)}
          </button>
        )}
        {chat.node_ids && (
          <span className="bw-chip" title={chat.node_ids.map((id) => nodeLabel(id) ?? 'a removed node').join(' · ')}>
            {chat.node_ids.length} selected nodes
          </span>
        )}
      </div>
      {loadError && (
        <p className="bw-error" role="alert">
          {loadError}{' '}
          <button type="button" className="bw-link-button" onClick={() => void load()}>
            Retry
          </button>
        </p>
      )}
      <ol className="bw-messages" ref={listRef} aria-label="Messages" aria-live="polite">
        {messages?.length === 0 && (
          <li className="bw-muted bw-messages__empty">
            Ask anything about this board. Answers draw on what has been read on it: notes, documents, PDFs, links and videos.
          </li>
        )}
        {messages?.map((message) => (
          <li
            key={message.id}
            className={`bw-message is-${message.role}`}
            data-testid={message.role === 'assistant' ? 'assistant-message' : 'user-message'}
          >
            <div className="bw-message__text">
              {message.role === 'assistant' ? <ReplyText message={message} onOpenCitation={onOpenCitation} /> : message.content}
              {message.streaming && <span className="bw-caret" role="img" aria-label="Writing" />}
            </div>
            {message.stopped && <div className="bw-message__note">Stopped. This partial reply was not saved.</div>}
            {message.error && (
              <div className="bw-message__note is-error" role="alert">
                {message.error}
              </div>
            )}
            {message.role === 'assistant' && (
              <Sources ids={sourcesOf(message)} known={sources} nodeLabel={nodeLabel} onOpenNode={onOpenNode} />
            )}
            {message.role === 'assistant' &&
              onAddToBoard &&
              !message.streaming &&
              !message.stopped &&
              !message.error &&
              message.content && (
                <button
                  type="button"
                  className="bw-link-button bw-message__add"
                  onClick={() => onAddToBoard(withoutMarkers(message.content), citedNodes(message, sources))}
                  title="A note with this reply, joined to the nodes it cites"
                >
                  Add to board
                </button>
              )}
          </li>
        ))}
      </ol>
      <form className="bw-composer" onSubmit={send}>
        {sendError && (
          <p className="bw-error" role="alert">
            {sendError}
          </p>
        )}
        <textarea
          aria-label="Message"
          placeholder={
            chat.node_ids
              ? 'Ask about the selected nodes…'
              : chat.node_id && nodeLabel(chat.node_id) !== undefined
                ? `Ask about “${nodeLabel(chat.node_id)}”…`
                : 'Ask about this board…'
          }
          value={draft}
          maxLength={CHAT_MESSAGE_MAX_CHARS}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event);
          }}
        />
        <div className="bw-composer__actions">
          <span className="bw-muted">Enter to send · Shift+Enter for a new line</span>
          {streaming ? (
            <button type="button" className="bw-button is-danger" onClick={() => streaming.abort()}>
              Stop
            </button>
          ) : (
            <button type="submit" className="bw-button is-primary" disabled={!draft.trim() || !messages}>
              Send
            </button>
          )}
        </div>
      </form>
    </div>
  );
}

function Sources(props: {
  ids: string[];
  known: Map<string, ChunkInfo>;
  nodeLabel(id: string): string | undefined;
  /** Brings a node into view; a pdf source names its page (the card then opens the PDF there). */
  onOpenNode(id: string, page?: number): void;
}) {
  const { ids, known, nodeLabel, onOpenNode } = props;
  const seen = new Set<string>();
  const items: { key: string; nodeId: string | null; text: string; page?: number }[] = [];
  for (const id of ids) {
    const info = known.get(id);
    if (!info) continue;
    const page = info.sourceType === 'pdf' ? ` · p. ${info.page}` : '';
    const key = `${info.nodeId ?? info.source}${page}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const label = info.nodeId ? (nodeLabel(info.nodeId) ?? info.source) : info.source;
    items.push({
      key,
      nodeId: info.nodeId && nodeLabel(info.nodeId) !== undefined ? info.nodeId : null,
      text: `${label}${page}`,
      page: info.sourceType === 'pdf' ? info.page : undefined,
    });
  }
  if (items.length === 0) return null;
  return (
    <div className="bw-sources" role="group" aria-label="Sources">
      <span className="bw-sources__label">Sources</span>
      {items.map((item) => (
        <button
          key={item.key}
          type="button"
          className="bw-chip"
          disabled={!item.nodeId}
          title={item.nodeId ? 'Show on the board' : 'No longer on the board'}
          onClick={() => item.nodeId && onOpenNode(item.nodeId, item.page)}
        >
          {item.text}
        </button>
      ))}
    </div>
  );
}

/** A reply's text with its markers as buttons that show the cited passage (plain text while it streams). */
function ReplyText(props: { message: UiMessage; onOpenCitation(citation: Citation): void }) {
  const { message, onOpenCitation } = props;
  const citations = citationsOf(message);
  if (citations.length === 0) return <>{message.content}</>;
  return (
    <>
      {splitMarkers(message.content).map((part, i) => {
        if (typeof part === 'string') return part;
        const citation = citations[part - 1];
        if (!citation) return `[${part}]`;
        return (
          <button
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text, in a fixed order.
            key={i}
            type="button"
            className="bw-cite"
            aria-label={`Source ${part}: ${citation.quote.slice(0, 120)}`}
            title={citation.quote}
            disabled={!citation.node_id}
            onClick={() => onOpenCitation(citation)}
          >
            {part}
          </button>
        );
      })}
    </>
  );
}

/** The nodes a reply cites (by its citations, else by its sources), each once. */
function citedNodes(message: Message, known: Map<string, ChunkInfo>): string[] {
  const fromCitations = citationsOf(message).flatMap((c) => (c.node_id ? [c.node_id] : []));
  const ids = fromCitations.length ? fromCitations : sourcesOf(message).flatMap((id) => known.get(id)?.nodeId ?? []);
  return [...new Set(ids)];
}
