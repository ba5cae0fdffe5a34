// Members of a board (issue 31): the owner adds people by user id or by a local account's email with
// a role, changes their role, removes them (a member may leave); and share links, revocable, that
// make whoever opens one a member with the link's role. Each change of membership is an event on the
// board's change log (member.added, member.updated, member.removed): the open streams of the person
// whose role changed end on it at once (src/events/event-stream.ts), and they reconnect, if they
// still may, under the new role. Who may do what is the access rule's (src/access/board-access.ts).
import { createHash, randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Database, Db, Executor } from '../db/schema.js';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { newId, now } from '../lib/ids.js';
import { applyPage, toPage, type Page, type PageRequest } from '../lib/pagination.js';
import { accessOf, assertOwner, findVisibleBoard, type SeenBoard } from '../access/board-access.js';
import { changeTransaction, recordChanges } from '../events/record.js';
import type {
  AddMemberBody,
  BoardMember,
  BoardRole,
  CreatedShareLink,
  MemberRole,
  ShareLink,
  UpdateMemberBody,
} from '../contract/members.js';
import { MemberRoles } from '../contract/members.js';

export interface MemberDeps {
  db: Db;
  /** PUBLIC_BASE_URL: the base of share link addresses (else the address the caller used). */
  publicBaseUrl: string | undefined;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
const rank = (role: MemberRole): number => MemberRoles.indexOf(role);

/** The member's row as answered, with their account email. */
async function memberOf(db: Executor, boardId: string, userId: string): Promise<BoardMember | undefined> {
  return db
    .selectFrom('board_members as m')
    .leftJoin('accounts as a', 'a.user_id', 'm.user_id')
    .select(['m.board_id', 'm.user_id', 'a.email', 'm.role', 'm.created_at', 'm.updated_at', 'm.added_by'])
    .where('m.board_id', '=', boardId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst()
    .then((row) => (row ? { ...row, email: row.email ?? null } : undefined));
}

const shareLinkColumns = ['id', 'board_id', 'role', 'created_at', 'created_by', 'revoked_at'] as const;

export class MemberService {
  constructor(private readonly deps: MemberDeps) {}

  /** The board, locked, when the caller owns it: 404 when they cannot see it, 403 when they can but do not own it. */
  private async ownedBoard(trx: Transaction<Database>, principal: Principal, boardId: string): Promise<SeenBoard> {
    const board = await findVisibleBoard(trx, principal, boardId);
    assertOwner(board, principal);
    await sql`SELECT 1 FROM boards WHERE id = ${boardId} FOR NO KEY UPDATE`.execute(trx);
    return board;
  }

  /** GET …/members: for the owner and the members (a visitor of a public board is 403). */
  async list(principal: Principal, boardId: string, page: PageRequest, list: string): Promise<Page<BoardMember>> {
    const { db } = this.deps;
    const board = await findVisibleBoard(db, principal, boardId);
    if (accessOf(board, board.member_role, principal).role === null) {
      throw forbidden("Only the board's owner and its members may list its members");
    }
    // Keyset on (created_at, user_id): the pagination's `id` is the member's user id.
    const rows = await applyPage(
      db
        .selectFrom('board_members as board_members')
        .leftJoin('accounts as a', 'a.user_id', 'board_members.user_id')
        .select([
          'board_members.board_id',
          'board_members.user_id',
          'board_members.user_id as id',
          'a.email',
          'board_members.role',
          'board_members.created_at',
          'board_members.updated_at',
          'board_members.added_by',
        ])
        .where('board_members.board_id', '=', boardId),
      page,
      'board_members',
      'user_id',
    ).execute();
    const result = toPage(rows, page, list);
    return { ...result, data: result.data.map(({ id: _id, ...m }) => ({ ...m, email: m.email ?? null })) };
  }

  /** POST …/members: the owner adds a person by user id or by a local account's email. */
  async add(principal: Principal, boardId: string, input: AddMemberBody): Promise<BoardMember> {
    if ((input.user_id === undefined) === (input.email === undefined)) throw invalid('Give exactly one of user_id and email');
    return changeTransaction(this.deps.db, async (trx) => {
      const board = await this.ownedBoard(trx, principal, boardId);
      const userId = await this.resolveUser(trx, input);
      if (userId === board.owner_id) throw invalid("The board's owner is not added as a member: they own it");
      const existing = await memberOf(trx, boardId, userId);
      if (existing) throw conflict('This person is already a member of the board; change their role with PATCH');
      const at = now();
      await trx
        .insertInto('board_members')
        .values({ board_id: boardId, user_id: userId, role: input.role, added_by: principal.userId, created_at: at, updated_at: at })
        .execute();
      const member = (await memberOf(trx, boardId, userId))!;
      await recordChanges(trx, boardId, principal.userId, [{ type: 'member.added', data: member }], at);
      return member;
    });
  }

  private async resolveUser(db: Executor, input: AddMemberBody): Promise<string> {
    if (input.user_id !== undefined) {
      const user = await db.selectFrom('users').select('id').where('id', '=', input.user_id).executeTakeFirst();
      if (!user) throw notFound('User');
      return user.id;
    }
    const email = input.email!.trim().toLowerCase();
    const account = await db.selectFrom('accounts').select('user_id').where('email', '=', email).executeTakeFirst();
    if (!account) throw notFound('Account with this email');
    return account.user_id;
  }

  /** PATCH …/members/{userId}: the owner changes a role. */
  async update(principal: Principal, ids: { boardId: string; userId: string }, input: UpdateMemberBody): Promise<BoardMember> {
    return changeTransaction(this.deps.db, async (trx) => {
      await this.ownedBoard(trx, principal, ids.boardId);
      const at = now();
      const updated = await trx
        .updateTable('board_members')
        .set({ role: input.role, updated_at: at })
        .where('board_id', '=', ids.boardId)
        .where('user_id', '=', ids.userId)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) throw notFound('Member');
      const member = (await memberOf(trx, ids.boardId, ids.userId))!;
      await recordChanges(trx, ids.boardId, principal.userId, [{ type: 'member.updated', data: member }], at);
      return member;
    });
  }

  /** DELETE …/members/{userId}: the owner removes a member, or a member leaves. */
  async remove(principal: Principal, ids: { boardId: string; userId: string }): Promise<void> {
    await changeTransaction(this.deps.db, async (trx) => {
      const board = await findVisibleBoard(trx, principal, ids.boardId);
      if (board.owner_id !== principal.userId && ids.userId !== principal.userId) {
        throw forbidden("Only the board's owner may remove another member");
      }
      const removed = await trx
        .deleteFrom('board_members')
        .where('board_id', '=', ids.boardId)
        .where('user_id', '=', ids.userId)
        .executeTakeFirst();
      if (removed.numDeletedRows === 0n) throw notFound('Member');
      await recordChanges(trx, ids.boardId, principal.userId, [
        { type: 'member.removed', data: { board_id: ids.boardId, user_id: ids.userId } },
      ]);
    });
  }

  /** POST …/share-links: the owner makes a link carrying a role; its token is answered once. */
  async createLink(principal: Principal, boardId: string, role: MemberRole, { origin }: { origin: string }): Promise<CreatedShareLink> {
    return changeTransaction(this.deps.db, async (trx) => {
      await this.ownedBoard(trx, principal, boardId);
      const token = `bsl_${randomBytes(24).toString('base64url')}`;
      const link = await trx
        .insertInto('board_share_links')
        .values({
          id: newId(),
          board_id: boardId,
          role,
          token_hash: hashToken(token),
          created_by: principal.userId,
          created_at: now(),
          revoked_at: null,
        })
        .returning(shareLinkColumns)
        .executeTakeFirstOrThrow();
      return { ...link, token, url: `${this.deps.publicBaseUrl ?? origin}/share/${token}` };
    });
  }

  /** GET …/share-links: the owner's links of the board, revoked ones too. */
  async listLinks(principal: Principal, boardId: string, page: PageRequest, list: string): Promise<Page<ShareLink>> {
    const { db } = this.deps;
    assertOwner(await findVisibleBoard(db, principal, boardId), principal);
    const rows = await applyPage(
      db.selectFrom('board_share_links').select(shareLinkColumns).where('board_id', '=', boardId),
      page,
      'board_share_links',
    ).execute();
    return toPage(rows, page, list);
  }

  /** DELETE …/share-links/{id}: revokes the link (once revoked it admits nobody more; its members stay). */
  async revokeLink(principal: Principal, ids: { boardId: string; id: string }): Promise<void> {
    const { db } = this.deps;
    assertOwner(await findVisibleBoard(db, principal, ids.boardId), principal);
    const revoked = await db
      .updateTable('board_share_links')
      .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now())) }))
      .where('board_id', '=', ids.boardId)
      .where('id', '=', ids.id)
      .executeTakeFirst();
    if (revoked.numUpdatedRows === 0n) throw notFound('Share link');
  }

  /**
   * POST /v1/share-links/accept: the caller becomes a member with the link's role (a member with a
   * higher role keeps it; the owner stays the owner). A revoked or unknown link is 404.
   */
  async accept(principal: Principal, token: string): Promise<{ board_id: string; role: BoardRole }> {
    return changeTransaction(this.deps.db, async (trx) => {
      const link = await trx
        .selectFrom('board_share_links as l')
        .innerJoin('boards as b', 'b.id', 'l.board_id')
        .select(['l.board_id', 'l.role', 'l.created_by', 'b.owner_id'])
        .where('l.token_hash', '=', hashToken(token))
        .where('l.revoked_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      if (!link) throw notFound('Share link');
      const boardId = link.board_id;
      if (link.owner_id === principal.userId) return { board_id: boardId, role: 'owner' as const };
      const existing = await memberOf(trx, boardId, principal.userId);
      if (existing && rank(existing.role) >= rank(link.role)) return { board_id: boardId, role: existing.role };
      const at = now();
      if (existing) {
        await trx
          .updateTable('board_members')
          .set({ role: link.role, updated_at: at })
          .where('board_id', '=', boardId)
          .where('user_id', '=', principal.userId)
          .execute();
      } else {
        await trx
          .insertInto('board_members')
          .values({
            board_id: boardId,
            user_id: principal.userId,
            role: link.role,
            added_by: link.created_by,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
      const member = (await memberOf(trx, boardId, principal.userId))!;
      await recordChanges(trx, boardId, principal.userId, [{ type: existing ? 'member.updated' : 'member.added', data: member }], at);
      return { board_id: boardId, role: link.role };
    });
  }
}
