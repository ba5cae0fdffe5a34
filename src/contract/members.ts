// Members of a board and their roles, the caller's permissions on a board, and share links (issue 31).
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from './common.js';

/** The roles a member may hold, lowest first. A commenter reads, and will comment once comments exist. */
export const MemberRoles = ['viewer', 'commenter', 'editor'] as const;
export const MemberRole = Type.Union(
  MemberRoles.map((r) => Type.Literal(r)),
  {
    description:
      'viewer: reads everything on the board; commenter: a viewer who may also comment; editor: also changes content, uploads, vectorizes and chats',
  },
);
export type MemberRole = Static<typeof MemberRole>;

/** The caller's role on a board: its owner, or the role they were given. */
export const BoardRole = Type.Union([Type.Literal('owner'), ...MemberRoles.map((r) => Type.Literal(r))], {
  description: "The caller's role: owner on their own boards, else the role they were given as a member",
});
export type BoardRole = Static<typeof BoardRole>;

export const BoardPermissions = Type.Object(
  {
    read: Type.Boolean({ description: 'Read the board, its nodes, edges, documents, events and members' }),
    comment: Type.Boolean({ description: 'Comment on the board (commenters, editors, the owner)' }),
    edit: Type.Boolean({ description: 'Create, change and delete nodes and edges; vectorize' }),
    upload: Type.Boolean({ description: 'Upload, list and delete asset files' }),
    chat: Type.Boolean({ description: 'Hold chats about the board' }),
    manage: Type.Boolean({ description: "Change the board's settings, its sharing and members; create share links" }),
    delete: Type.Boolean({ description: 'Delete the board' }),
  },
  { description: 'What the caller may do on this board' },
);
export type BoardPermissions = Static<typeof BoardPermissions>;

export const BoardMember = Type.Object({
  board_id: Uuid,
  user_id: Uuid,
  email: Type.Union([Type.String(), Type.Null()], { description: "The member's local account email, null when they have none" }),
  role: MemberRole,
  created_at: Timestamp,
  updated_at: Timestamp,
  added_by: Type.Union([Uuid, Type.Null()], { description: 'Who added them (the owner, or the creator of the share link they opened)' }),
});
export type BoardMember = Static<typeof BoardMember>;

export const AddMemberBody = Type.Object(
  {
    user_id: Type.Optional(Uuid),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'The email of a local account' })),
    role: MemberRole,
  },
  { additionalProperties: false },
);
export type AddMemberBody = Static<typeof AddMemberBody>;

export const UpdateMemberBody = Type.Object({ role: MemberRole }, { additionalProperties: false });
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const MemberParams = Type.Object({ boardId: Uuid, userId: Uuid });

export const ShareLink = Type.Object({
  id: Uuid,
  board_id: Uuid,
  role: MemberRole,
  created_at: Timestamp,
  created_by: Type.Union([Uuid, Type.Null()]),
  revoked_at: Type.Union([Timestamp, Type.Null()], { description: 'When the link was revoked; a revoked link admits nobody' }),
});
export type ShareLink = Static<typeof ShareLink>;

export const CreatedShareLink = Type.Intersect([
  ShareLink,
  Type.Object({
    token: Type.String({ description: 'The secret of the link, shown once' }),
    url: Type.String({ description: "The web app's address that opens the link" }),
  }),
]);
export type CreatedShareLink = Static<typeof CreatedShareLink>;

export const CreateShareLinkBody = Type.Object({ role: MemberRole }, { additionalProperties: false });
export type CreateShareLinkBody = Static<typeof CreateShareLinkBody>;

export const AcceptShareLinkBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of a share link' }) },
  { additionalProperties: false },
);
export type AcceptShareLinkBody = Static<typeof AcceptShareLinkBody>;
