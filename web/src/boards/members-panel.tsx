// The members part of the Share dialog (the owner's): who the board is shared with and their role,
// adding a person by the email of their account, changing a role, removing a member; and share
// links carrying a role, which the owner makes, copies and revokes. Everything is the API's
// (/v1/boards/{id}/members, /share-links); a failed change keeps the form as it was and says why.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api';
import { copyText } from '../lib/clipboard';
import { messageOf, unwrap } from '../lib/request';
import { Notice, useToast } from '../ui/toast';

type Role = 'viewer' | 'commenter' | 'editor';
const ROLES: { value: Role; label: string }[] = [
  { value: 'viewer', label: 'Can view' },
  { value: 'commenter', label: 'Can comment' },
  { value: 'editor', label: 'Can edit' },
];

interface Member {
  user_id: string;
  email: string | null;
  role: Role;
}
interface Link {
  id: string;
  role: Role;
  revoked_at: string | null;
  url?: string;
}

function RoleSelect({ value, onChange, label, disabled }: { value: Role; onChange(role: Role): void; label: string; disabled?: boolean }) {
  return (
    <select aria-label={label} value={value} disabled={disabled} onChange={(event) => onChange(event.target.value as Role)}>
      {ROLES.map((role) => (
        <option key={role.value} value={role.value}>
          {role.label}
        </option>
      ))}
    </select>
  );
}

export function MembersPanel({ boardId }: { boardId: string }) {
  const toast = useToast();
  const [members, setMembers] = useState<Member[]>();
  const [links, setLinks] = useState<Link[]>([]);
  const [error, setError] = useState<string>();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [linkRole, setLinkRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  const path = { boardId };

  const load = useCallback(async () => {
    setError(undefined);
    try {
      const [list, linkList] = await Promise.all([
        unwrap(
          api.GET('/v1/boards/{boardId}/members', { params: { path: { boardId }, query: { limit: 100 } } }),
          'Could not load the members',
        ),
        unwrap(
          api.GET('/v1/boards/{boardId}/share-links', { params: { path: { boardId }, query: { limit: 100 } } }),
          'Could not load the links',
        ),
      ]);
      setMembers(list.data);
      setLinks((known) => linkList.data.map((link) => ({ ...link, url: known.find((k) => k.id === link.id)?.url })));
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, [boardId]);

  useEffect(() => void load(), [load]);

  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const added = await unwrap(
        api.POST('/v1/boards/{boardId}/members', { params: { path }, body: { email: email.trim(), role } }),
        'Could not add this person',
      );
      setMembers((all) => [...(all ?? []), added.data]);
      setEmail('');
      toast.success(`Shared with ${added.data.email ?? 'them'}`);
    });
  };

  const change = (member: Member, next: Role) =>
    void run(async () => {
      const updated = await unwrap(
        api.PATCH('/v1/boards/{boardId}/members/{userId}', { params: { path: { boardId, userId: member.user_id } }, body: { role: next } }),
        'Could not change the role',
      );
      setMembers((all) => all?.map((m) => (m.user_id === member.user_id ? updated.data : m)));
    });

  const remove = (member: Member) =>
    void run(async () => {
      await unwrap(
        api.DELETE('/v1/boards/{boardId}/members/{userId}', { params: { path: { boardId, userId: member.user_id } } }),
        'Could not remove this person',
      );
      setMembers((all) => all?.filter((m) => m.user_id !== member.user_id));
    });

  const makeLink = () =>
    void run(async () => {
      const made = await unwrap(
        api.POST('/v1/boards/{boardId}/share-links', { params: { path }, body: { role: linkRole } }),
        'Could not make a link',
      );
      setLinks((all) => [made.data, ...all]);
      if (await copyText(made.data.url)) toast.success('Link made and copied');
    });

  const revoke = (link: Link) =>
    void run(async () => {
      await unwrap(api.DELETE('/v1/boards/{boardId}/share-links/{id}', { params: { path: { boardId, id: link.id } } }), 'Could not revoke');
      setLinks((all) => all.map((l) => (l.id === link.id ? { ...l, revoked_at: new Date().toISOString() } : l)));
    });

  const label = (member: Member) => member.email ?? member.user_id;
  return (
    <section className="members" aria-label="People with access">
      <h3>People</h3>
      <form className="inline-form" onSubmit={add}>
        <input
          type="email"
          aria-label="Email of the person to add"
          placeholder="Email"
          value={email}
          required
          onChange={(event) => setEmail(event.target.value)}
        />
        <RoleSelect label="Role of the person to add" value={role} onChange={setRole} />
        <button type="submit" disabled={busy || email.trim() === ''}>
          Add
        </button>
      </form>
      {members === undefined && !error && <p className="muted">Loading…</p>}
      <ul className="member-list" aria-label="Members">
        {members?.map((member) => (
          <li key={member.user_id} className="member-row">
            <span className="member-name">{label(member)}</span>
            <RoleSelect label={`Role of ${label(member)}`} value={member.role} disabled={busy} onChange={(next) => change(member, next)} />
            <button
              type="button"
              className="button-small"
              aria-label={`Remove ${label(member)}`}
              disabled={busy}
              onClick={() => remove(member)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <h3>Links</h3>
      <div className="inline-form">
        <RoleSelect label="Role the link gives" value={linkRole} onChange={setLinkRole} />
        <button type="button" disabled={busy} onClick={makeLink}>
          Make a link
        </button>
      </div>
      <ul className="member-list" aria-label="Share links">
        {links.map((link) => (
          <li key={link.id} className="member-row">
            {link.url ? (
              <input readOnly aria-label="Share link address" value={link.url} onFocus={(event) => event.target.select()} />
            ) : (
              <span className="muted">Link made earlier</span>
            )}
            <span>{ROLES.find((r) => r.value === link.role)?.label}</span>
            {link.revoked_at ? (
              <span className="muted">Revoked</span>
            ) : (
              <button type="button" className="button-small" disabled={busy} onClick={() => revoke(link)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      {error && <Notice tone="error" message={error} action={{ label: 'Retry', run: () => void load() }} />}
    </section>
  );
}
