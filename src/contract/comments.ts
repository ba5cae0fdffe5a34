// Comments on a board (issue 31): threads on a card, on a point of the canvas or on the board itself,
// their replies, resolving and reopening, @mentions, and each reader's unread marks.
import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, TimestampInput, Uuid } from './common.js';
import { COMMENT_MAX_CHARS, COMMENT_MENTIONS_MAX, COORDINATE_MAX } from './limits.js';

const Coordinate = Type.Number({ minimum: -COORDINATE_MAX, maximum: COORDINATE_MAX });
export const CommentPosition = Type.Object(
  { x: Coordinate, y: Coordinate },
  { additionalProperties: false, description: 'A point of the canvas' },
);

const Content = Type.String({
  minLength: 1,
  maxLength: COMMENT_MAX_CHARS,
  description: `The comment's text, 1..${COMMENT_MAX_CHARS} characters, not only white space`,
});
const Mentions = Type.Array(Uuid, {
  maxItems: COMMENT_MENTIONS_MAX,
  uniqueItems: true,
  description: `User ids of the people mentioned (at most ${COMMENT_MENTIONS_MAX}); each must be able to read the board (its owner or a member)`,
});

export const CommentAuthor = Type.Object({
  id: Uuid,
  name: Type.String({ description: "What to call the author: their local account email's name part, else their sign-in subject" }),
});

export const Comment = Type.Object({
  id: Uuid,
  board_id: Uuid,
  thread_id: Uuid,
  parent_id: Type.Union([Uuid, Type.Null()], { description: "null for a thread's first comment; else the thread's first comment" }),
  node_id: Type.Union([Uuid, Type.Null()], {
    description: "The card the thread is on (a thread's first comment only); null when it is not on a card, or the card was deleted",
  }),
  position: Type.Union([CommentPosition, Type.Null()], {
    description: "The point of the canvas the thread is on; a thread whose card was deleted keeps the card's last position",
  }),
  author: CommentAuthor,
  content: Type.String(),
  mentions: Type.Array(Uuid),
  resolved_at: NullableTimestamp,
  resolved_by: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  edited_at: Type.Union([Timestamp, Type.Null()], { description: 'When the content or mentions were last changed; null when never' }),
});
export type Comment = Static<typeof Comment>;

/** A comment in a list or a single read: with whether it is unread for the caller. */
export const ReadComment = Type.Object({
  ...Comment.properties,
  unread: Type.Boolean({ description: 'true when the caller has not marked it read; their own comments never are' }),
});
export type ReadComment = Static<typeof ReadComment>;

export const CreateCommentBody = Type.Object(
  {
    content: Content,
    thread_id: Type.Optional({ ...Uuid, description: 'Reply to this thread (the id of its first comment); omitted: start a thread' }),
    node_id: Type.Optional({ ...Uuid, description: 'A new thread on this card of the board' }),
    position: Type.Optional({ ...CommentPosition, description: 'A new thread on this point of the canvas' }),
    mentions: Type.Optional(Mentions),
  },
  { additionalProperties: false },
);
export type CreateCommentBody = Static<typeof CreateCommentBody>;

export const UpdateCommentBody = Type.Object(
  {
    content: Type.Optional(Content),
    mentions: Type.Optional(Mentions),
    resolved: Type.Optional(
      Type.Boolean({ description: "A thread's first comment only: true resolves the thread, false reopens it (anyone who may comment)" }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCommentBody = Static<typeof UpdateCommentBody>;

export const CommentListQuery = Type.Object(
  {
    thread_id: Type.Optional({ ...Uuid, description: "Only this thread's comments" }),
    node_id: Type.Optional({ ...Uuid, description: 'Only the threads on this card' }),
    resolved: Type.Optional(Type.Boolean({ description: 'Only resolved (true) or open (false) threads' })),
  },
  { additionalProperties: false },
);
export type CommentListQuery = Static<typeof CommentListQuery>;

export const CommentParams = Type.Object({ boardId: Uuid, commentId: Uuid });

export const MarkCommentsReadBody = Type.Object(
  {
    thread_id: Type.Optional({ ...Uuid, description: 'Only this thread; omitted: every comment of the board' }),
    up_to: { ...TimestampInput, description: 'Comments created at or before this time are read (a time ahead of now counts as now)' },
  },
  { additionalProperties: false },
);
export type MarkCommentsReadBody = Static<typeof MarkCommentsReadBody>;

export const CommentsRead = Type.Object({
  board_id: Uuid,
  thread_id: Type.Union([Uuid, Type.Null()]),
  read_at: Timestamp,
});
export type CommentsRead = Static<typeof CommentsRead>;

/** What a `comment.deleted` event carries. */
export const DeletedComment = Type.Object({ id: Uuid, thread_id: Uuid });
