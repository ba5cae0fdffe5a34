// A note's text as this person has it while their typing is not yet confirmed by the service, and
// how it meets other people's typing (three-way, edits/text-merge.ts's mergeText). Per note: the
// text shown (`local`) and the service's text it was typed on (`base`). The outbox (outbox.ts)
// sends a text with If-Match of the state it was typed on; a 412 reads the node, merges, and sends
// the merge. Another person's text arriving on the event stream is merged into what is typed here
// at once (so the screen shows both), except while a send of this note is unanswered: then the
// send's own merge takes it in, and what the service answers is what the typing is rebased on.
// Where the merge cannot keep both (the same words changed), the other person's text is shown and
// this person's text is kept aside with a notice (never dropped in silence).
import { ApiError } from '../../../lib/api-error';
import type { NodeRecord } from '../../board-api';
import { str } from '../../../lib/str';
import { lastTyped, mergeText } from '../edits/text-merge';
import { readNode, type TaggedNode, writeText } from './send';

interface Draft {
  local: string;
  base: string;
  /** updated_at (ms) of the service state `base` is: older states from the stream are ignored. */
  baseAt: number;
}

/** A text send not yet confirmed (tried, the answer not known or a retry waiting). */
interface Unconfirmed {
  sent: string;
  /** The newest other person's state that came meanwhile. */
  deferred?: NodeRecord;
}

const timeOf = (record: NodeRecord) => Date.parse(record.updated_at as unknown as string);

export interface TextSyncDeps {
  boardId: string;
  /** The waiting text operations of a note are to carry this text, typed on `base`. */
  retext(id: string, text: string, base: string): void;
  /** A note's text is now the service's `text` again (nothing of this person's waits). */
  settled(id: string, text: string): void;
  /** This person's text could not be merged with another's: it is kept aside, with a notice. */
  keptAside(id: string, mine: string): void;
}

export class TextSync {
  private readonly drafts = new Map<string, Draft>();
  private readonly unconfirmed = new Map<string, Unconfirmed>();
  /** The ETag of a note's state as last answered, and that state's text. */
  private readonly tags = new Map<string, { etag: string; text: string }>();
  /** What this person last typed into a note that the service has (mergeText keeps typing after it). */
  private readonly lastTyping = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  deps?: TextSyncDeps;

  /** The text shown for a note while this person's typing waits; undefined: the service's. */
  local(id: string): string | undefined {
    return this.drafts.get(id)?.local;
  }

  /** The service text this person's typing is based on, for the operation it makes. */
  baseFor(id: string, serverText: string): string {
    return this.drafts.get(id)?.base ?? serverText;
  }

  /** The person typed `text` into a note whose service text (if nothing waits) is `serverText`. */
  typed(id: string, text: string, serverText: string): string {
    const draft = this.drafts.get(id);
    if (draft) draft.local = text;
    else this.drafts.set(id, { local: text, base: serverText, baseAt: 0 });
    this.emit();
    return this.drafts.get(id)!.base;
  }

  /** A pending text from the outbox after a reload: shown as typed. */
  restore(id: string, text: string, base: string): void {
    this.drafts.set(id, { local: text, base, baseAt: 0 });
    this.emit();
  }

  /** The note is gone (deleted here or by someone): nothing of it waits any more. */
  forget(id: string): void {
    this.drafts.delete(id);
    this.unconfirmed.delete(id);
    this.lastTyping.delete(id);
    this.emit();
  }

  /**
   * A state of the note from the event stream or a reload. Returns true when it was taken in here
   * (the canvas then leaves the text shown to this module).
   */
  remote(record: NodeRecord): void {
    const draft = this.drafts.get(record.id);
    if (!draft) return;
    const at = timeOf(record);
    if (at <= draft.baseAt) return; // older than what the typing is based on (or its echo)
    const theirs = str(record.node_data.text);
    const unconfirmed = this.unconfirmed.get(record.id);
    if (unconfirmed) {
      // The send's If-Match fails on it and its merge takes it in; or, if it came after the
      // send, it is merged once the send is answered.
      if (theirs !== unconfirmed.sent && (!unconfirmed.deferred || timeOf(unconfirmed.deferred) < at)) unconfirmed.deferred = record;
      return;
    }
    this.rebase(record.id, theirs, at);
  }

  /** The person's text merged onto `theirs`, the service's newer text. */
  private rebase(id: string, theirs: string, at: number): void {
    const draft = this.drafts.get(id);
    if (!draft) return;
    if (theirs === draft.base) {
      draft.baseAt = Math.max(draft.baseAt, at);
      return;
    }
    const merge = mergeText(draft.base, draft.local, theirs, this.lastTyping.get(id));
    if (!merge.clean) this.deps?.keptAside(id, merge.mine);
    draft.local = merge.text;
    draft.base = theirs;
    draft.baseAt = at;
    this.deps?.retext(id, merge.text, theirs);
    this.emit();
  }

  /**
   * Sends a note's text (the outbox's `text` operation): with If-Match of the state it was typed
   * on; on 412 (or with no tag known) the node is read and the text merged with its text. Returns
   * the node as the service has it then. Throws ApiError.
   */
  async send(id: string, text: string, base: string): Promise<TaggedNode> {
    const { boardId } = this.deps!;
    const draft = this.drafts.get(id);
    // Typing that goes on meanwhile is typed on this text.
    if (draft) draft.base = text;
    const unconfirmed = this.unconfirmed.get(id) ?? { sent: text };
    unconfirmed.sent = text;
    this.unconfirmed.set(id, unconfirmed);
    const known = this.tags.get(id);
    let etag = known && known.text === base ? known.etag : undefined;
    let mine = text;
    let from = base;
    // What the person typed (as they typed it, whatever it is merged with): later merges keep their
    // typing after it.
    const typing = lastTyped(base, text);
    const landed = (answer: TaggedNode) => {
      if (typing !== '') this.lastTyping.set(id, typing);
      return this.confirm(id, text, answer);
    };
    for (let attempt = 0; ; attempt++) {
      if (!etag) {
        const current = await readNode(boardId, id);
        etag = current.etag;
        const theirs = str(current.node.node_data.text);
        // Already there (a resend of what landed): nothing to merge, nothing to send.
        if (theirs === mine) return landed(current);
        if (theirs !== from) {
          const merge = mergeText(from, mine, theirs, this.lastTyping.get(id));
          if (!merge.clean) this.deps?.keptAside(id, merge.mine);
          mine = merge.text;
          from = theirs;
        }
        if (mine === theirs) return landed(current);
      }
      try {
        return landed(await writeText(boardId, id, mine, etag));
      } catch (error) {
        // Changed since it was read: read it again and merge (a few times at most, then retried later).
        if (!(error instanceof ApiError) || error.status !== 412 || attempt >= 4) throw error;
        etag = undefined;
      }
    }
  }

  /** The send failed for good (refused): the person's text is given back by the caller's notice. */
  refused(id: string): void {
    this.unconfirmed.delete(id);
    this.drafts.delete(id);
    this.emit();
  }

  /** The service has `answer` after a send of `sent`: the typing since is rebased onto it. */
  private confirm(id: string, sent: string, answer: TaggedNode): TaggedNode {
    const text = str(answer.node.node_data.text);
    const at = timeOf(answer.node);
    this.tags.set(id, { etag: answer.etag, text });
    const deferred = this.unconfirmed.get(id)?.deferred;
    this.unconfirmed.delete(id);
    const draft = this.drafts.get(id);
    if (draft) {
      if (text !== sent) {
        // Merged with another person's text: what was typed since goes on top of the merge.
        const merge = mergeText(sent, draft.local, text, this.lastTyping.get(id));
        if (!merge.clean) this.deps?.keptAside(id, merge.mine);
        draft.local = merge.text;
        this.deps?.retext(id, merge.text, text);
      }
      draft.base = text;
      draft.baseAt = Math.max(draft.baseAt, at);
      if (deferred && timeOf(deferred) > at) this.rebase(id, str(deferred.node_data.text), timeOf(deferred));
    }
    this.emit();
    return answer;
  }

  /** Nothing of the note waits in the outbox any more: it shows the service's text again. */
  idle(id: string): void {
    const draft = this.drafts.get(id);
    if (!draft || this.unconfirmed.has(id)) return;
    this.drafts.delete(id);
    this.deps?.settled(id, draft.base);
    this.emit();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
