// Chats and their messages: the request bodies, the chat (listed, and read with its memory and
// metadata) and the message as answered.
import { type Static, Type } from '@sinclair/typebox';
import { FreeObject, NullableTimestamp, Timestamp, Uuid } from './common.js';
import { CHAT_MESSAGE_MAX_CHARS, CHAT_TITLE_MAX_CHARS, IDS_MAX_ITEMS } from './limits.js';

const Title = Type.String({ minLength: 1, maxLength: CHAT_TITLE_MAX_CHARS, description: `At most ${CHAT_TITLE_MAX_CHARS} characters` });

/** The nodes a chat or one message is limited to: retrieval and the notes it reads look only at them. */
const NodeIds = Type.Array(Uuid, {
  minItems: 1,
  maxItems: IDS_MAX_ITEMS,
  description: `Nodes of this board (1..${IDS_MAX_ITEMS}): the reply draws only on their chunks and text`,
});

const ChatFields = {
  id: Uuid,
  title: Type.String(),
  node_id: Type.Union([Uuid, Type.Null()], { description: 'The node the chat is about, or null' }),
  node_ids: Type.Union([Type.Array(Uuid), Type.Null()], {
    description: 'The selection of nodes the chat is limited to, or null for the whole board',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_message_at: NullableTimestamp,
};
export const ChatListItem = Type.Object(ChatFields);
export type ChatListItem = Static<typeof ChatListItem>;
export const Chat = Type.Object({
  ...ChatFields,
  memory: Type.Array(Type.String(), { description: 'Facts condensed from older turns, kept as context' }),
  metadata: Type.Union([FreeObject, Type.Null()], {
    description: 'model, total_tokens and retrieval of the last reply; null before the first',
  }),
});
export type Chat = Static<typeof Chat>;

/** One entry of an assistant message's `metadata.citations`: the marker `[n]` in its content cites citations[n - 1]. */
export const Citation = Type.Object({
  n: Type.Integer({ minimum: 1 }),
  chunk_id: Uuid,
  node_id: Type.Union([Uuid, Type.Null()]),
  quote: Type.String({ description: "The cited passage's exact text, a substring of the chunk's content" }),
  char_start: Type.Optional(Type.Integer()),
  char_end: Type.Optional(Type.Integer()),
  page: Type.Optional(Type.Integer()),
  start_seconds: Type.Optional(Type.Number()),
});
export type Citation = Static<typeof Citation>;

export const Message = Type.Object({
  id: Uuid,
  role: Type.String({ enum: ['user', 'assistant'] }),
  content: Type.String(),
  model: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  metadata: Type.Union([FreeObject, Type.Null()], {
    description:
      'Assistant messages: usage, finish_reason, sources (chunk ids; the marker `[n]` in content cites sources[n-1]), ' +
      'citations (aligned with sources: {n, chunk_id, node_id, quote, char_start?, char_end?, page?, start_seconds?}), retrieval',
  }),
});
export type Message = Static<typeof Message>;

export const CreateChatBody = Type.Object(
  {
    title: Type.Optional(Title),
    node_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'A node of this board' })),
    node_ids: Type.Optional(Type.Union([NodeIds, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateChatBody = Static<typeof CreateChatBody>;
export const UpdateChatBody = Type.Object({ title: Title }, { additionalProperties: false });
export const PostMessageBody = Type.Object(
  {
    content: Type.String({
      minLength: 1,
      maxLength: CHAT_MESSAGE_MAX_CHARS,
      description: `The user message, 1..${CHAT_MESSAGE_MAX_CHARS.toLocaleString('en-US')} characters`,
    }),
    stream: Type.Optional(Type.Boolean({ default: false, description: 'true: answer as text/event-stream' })),
    node_ids: Type.Optional(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: IDS_MAX_ITEMS,
        description: "For this reply only, instead of the chat's own node_ids: nodes of this board the reply draws on",
      }),
    ),
  },
  { additionalProperties: false },
);
