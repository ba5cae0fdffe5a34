// Chats of a board: create, list, read, rename, delete, and list their messages. A chat is private
// to the user who created it, on any board: another user's chat is "Chat not found" even on a public
// board. Reading needs the board visible to the caller; creating a chat needs only that too (a
// viewer of a public board may hold private chats about it), never edit rights on the board.
import { sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { assertCanChat, boardVisibleTo, findVisibleBoard } from '../access/board-access.js';
import { assertNodeOnBoard, nodesOfBoard } from '../access/board-nodes.js';
import type { Db, Executor } from '../db/schema.js';
import { notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { Chat, ChatListItem, type CreateChatBody, Message } from '../contract/chats.js';
import { fieldsOf, pickShape } from '../contract/common.js';

export const DEFAULT_TITLE = 'New chat';

/** The columns of each shape, in the order of its schema. */
const listColumns = fieldsOf(ChatListItem);
const chatColumns = fieldsOf(Chat);
const messageColumns = fieldsOf(Message);

/** The caller's chat on a board the caller can see, or "Board not found" / "Chat not found". */
export async function findOwnChat(db: Executor, principal: Principal, boardId: string, chatId: string) {
  const row = await db
    .selectFrom('chats')
    .selectAll()
    .where('id', '=', chatId)
    .where('board_id', '=', boardId)
    .where('owner_id', '=', principal.userId)
    .where(boardVisibleTo(principal, boardId))
    .executeTakeFirst();
  if (row) return row;
  await findVisibleBoard(db, principal, boardId);
  throw notFound('Chat');
}

export async function createChat(db: Db, principal: Principal, boardId: string, input: CreateChatBody): Promise<Chat> {
  assertCanChat(await findVisibleBoard(db, principal, boardId), principal);
  const nodeIds = input.node_ids ? await nodesOfBoard(db, boardId, input.node_ids, 'node_ids') : null;
  if (input.node_id) await assertNodeOnBoard(db, boardId, input.node_id, 'node_id');
  const at = now();
  // The board may vanish between the check and the insert: the foreign key then fails, read as 404.
  const row = await db
    .insertInto('chats')
    .values({
      id: newId(),
      board_id: boardId,
      owner_id: principal.userId,
      node_id: input.node_id ?? null,
      node_ids: nodeIds ? JSON.stringify(nodeIds) : null,
      title: input.title ?? DEFAULT_TITLE,
      metadata: null,
      created_at: at,
      updated_at: at,
      last_message_at: null,
      memory_through: null,
      generation_id: null,
      generating_until: null,
    })
    .returning(chatColumns)
    .executeTakeFirst()
    .catch((error: unknown) => {
      if ((error as { code?: string }).code === '23503') throw notFound('Board');
      throw error;
    });
  return row!;
}

export async function listChats(
  db: Db,
  principal: Principal,
  boardId: string,
  page: PageRequest,
  list: string,
): Promise<Page<ChatListItem>> {
  const query = db
    .selectFrom('chats')
    .select(listColumns)
    .where('board_id', '=', boardId)
    .where('owner_id', '=', principal.userId)
    .where(boardVisibleTo(principal, boardId));
  const rows = await applyPage(query, page, 'chats').execute();
  if (rows.length === 0) await findVisibleBoard(db, principal, boardId);
  return toPage(rows, page, list);
}

export async function getChat(db: Db, principal: Principal, boardId: string, chatId: string): Promise<Chat> {
  return pickShape(Chat, await findOwnChat(db, principal, boardId, chatId));
}

export async function renameChat(db: Db, principal: Principal, boardId: string, chatId: string, title: string): Promise<Chat> {
  await findOwnChat(db, principal, boardId, chatId);
  const row = await db
    .updateTable('chats')
    .set({ title, updated_at: now() })
    .where('id', '=', chatId)
    .where('owner_id', '=', principal.userId)
    .returning(chatColumns)
    .executeTakeFirst();
  if (!row) throw notFound('Chat');
  return row;
}

export async function deleteChat(db: Db, principal: Principal, boardId: string, chatId: string): Promise<void> {
  await findOwnChat(db, principal, boardId, chatId);
  // Messages go by ON DELETE CASCADE in the same statement.
  const gone = await db
    .deleteFrom('chats')
    .where('id', '=', chatId)
    .where('owner_id', '=', principal.userId)
    .returning('id')
    .executeTakeFirst();
  if (!gone) throw notFound('Chat');
}

export async function listMessages(
  db: Db,
  principal: Principal,
  boardId: string,
  chatId: string,
  page: PageRequest,
  list: string,
): Promise<Page<Message>> {
  const query = db
    .selectFrom('messages')
    .select(messageColumns)
    .where('chat_id', '=', chatId)
    .where(
      sql<boolean>`EXISTS (SELECT 1 FROM chats c WHERE c.id = ${chatId} AND c.board_id = ${boardId} AND c.owner_id = ${principal.userId})`,
    )
    .where(boardVisibleTo(principal, boardId));
  const rows = await applyPage(query, page, 'messages').execute();
  if (rows.length === 0) await findOwnChat(db, principal, boardId, chatId);
  return toPage(rows, page, list);
}
