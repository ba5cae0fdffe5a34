// API keys page: create a key (name, scopes, optional expiry) and see the raw key exactly once
// with a copy button; the list shows prefix, scopes, created, last used and expiry; revoke after a
// confirmation. Keys are for programs calling the API; this page itself uses the session's token.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api';
import { copyText } from '../lib/clipboard';
import { formatDate, formatDateTime } from '../lib/format';
import { messageOf, unwrap } from '../lib/request';
import { useDocumentTitle } from '../lib/title';
import { ConfirmDialog } from '../ui/dialog';
import { Notice, useToast } from '../ui/toast';
import { API_KEY_NAME_MAX_CHARS } from '@board-workspace/limits';

type Scope = 'read' | 'write' | 'admin';
interface ApiKey {
  id: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}
type CreatedKey = ApiKey & { raw_key: string };

const SCOPES: { value: Scope; hint: string }[] = [
  { value: 'read', hint: 'list and read boards and their content' },
  { value: 'write', hint: 'create, change and delete' },
  { value: 'admin', hint: 'manage API keys' },
];

export function KeysPage() {
  useDocumentTitle('API keys');
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string>();
  const [created, setCreated] = useState<CreatedKey>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const toast = useToast();

  const load = useCallback(async (after?: string) => {
    setLoading(true);
    setLoadError(undefined);
    try {
      const page = await unwrap(
        api.GET('/v1/me/api-keys', { params: { query: { limit: 50, ...(after ? { cursor: after } : {}) } } }),
        'Could not load your API keys',
      );
      setKeys((previous) => [...(after ? previous : []), ...page.data]);
      setCursor(page.has_more ? page.cursor : null);
    } catch (error) {
      setLoadError(messageOf(error));
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => void load(), [load]);

  return (
    <main className="page">
      <div className="page-head">
        <h1>API keys</h1>
      </div>
      <p className="muted">
        Keys let programs call the API as you. Send one as <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          setKeys((all) => [key, ...all]);
        }}
      />
      {loadError && <Notice tone="error" message={loadError} action={{ label: 'Retry', run: () => void load(cursor ?? undefined) }} />}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {!loading && !loadError && keys.length === 0 && <p className="empty">No API keys yet.</p>}
        {keys.length > 0 && (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => {
                  const expired = key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();
                  return (
                    <tr key={key.id} className={key.revoked_at || expired ? 'inactive' : undefined}>
                      <td>{key.name}</td>
                      <td data-label="Key">
                        <code>{key.prefix}…</code>
                      </td>
                      <td data-label="Scopes">{key.scopes.join(', ')}</td>
                      <td data-label="Created">{formatDate(key.created_at)}</td>
                      <td data-label="Last used">{formatDateTime(key.last_used_at)}</td>
                      <td data-label="Expires">{formatDate(key.expires_at)}</td>
                      <td className="cell-actions">
                        {key.revoked_at ? (
                          <span className="badge">Revoked</span>
                        ) : (
                          <>
                            {expired && <span className="badge">Expired</span>}
                            <button
                              type="button"
                              className="button-small button-danger-quiet"
                              onClick={() => setRevoking(key)}
                              aria-label={`Revoke ${key.name}`}
                            >
                              Revoke
                            </button>
                          </>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {loading && (
          <p className="muted" role="status">
            Loading…
          </p>
        )}
        {cursor && !loading && (
          <button type="button" className="load-more" onClick={() => void load(cursor)}>
            Load more
          </button>
        )}
      </section>
      {revoking && (
        <ConfirmDialog
          title="Revoke this key?"
          body={
            <p>
              Programs using “{revoking.name}” (<code>{revoking.prefix}…</code>) will be refused at once. This cannot be undone.
            </p>
          }
          confirmLabel="Revoke key"
          busyLabel="Revoking…"
          onConfirm={async () => {
            await unwrap(api.DELETE('/v1/me/api-keys/{id}', { params: { path: { id: revoking.id } } }), 'Could not revoke the key');
            const now = new Date().toISOString();
            setKeys((all) => all.map((key) => (key.id === revoking.id ? { ...key, revoked_at: key.revoked_at ?? now } : key)));
            if (created?.id === revoking.id) setCreated(undefined);
            toast.success(`Revoked “${revoking.name}”`);
          }}
          onClose={() => setRevoking(undefined)}
        />
      )}
    </main>
  );
}

/** End of the chosen day in the person's time zone, as the API's ISO timestamp. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

function CreateKey({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['read']));
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('Give the key a name, such as the program that will use it.');
    if (scopes.size === 0) return setError('Choose at least one scope.');
    if (expires && Date.parse(endOfDay(expires)) <= Date.now()) return setError('Choose an expiry date from today on.');
    setBusy(true);
    setError(undefined);
    try {
      const body: { name: string; scopes: Scope[]; expires_at?: string } = {
        name: name.trim(),
        scopes: SCOPES.map((scope) => scope.value).filter((scope) => scopes.has(scope)),
        ...(expires ? { expires_at: endOfDay(expires) } : {}),
      };
      const result = await unwrap(api.POST('/v1/me/api-keys', { body }), 'Could not create the key');
      onCreated(result.data);
      setName('');
      setExpires('');
      setScopes(new Set(['read']));
    } catch (failure) {
      setError(messageOf(failure)); // the form keeps its values; Create again retries
    } finally {
      setBusy(false);
    }
  };

  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) => {
      const next = new Set(current);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });

  return (
    <form className="card stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create a key</h2>
      <div className="form-row">
        <label className="field grow">
          <span>Name</span>
          <input
            value={name}
            maxLength={API_KEY_NAME_MAX_CHARS}
            onChange={(event) => setName(event.target.value)}
            placeholder="e.g. nightly import"
          />
        </label>
        <label className="field">
          <span>Expires on (optional)</span>
          <input type="date" value={expires} min={today()} onChange={(event) => setExpires(event.target.value)} />
        </label>
      </div>
      <fieldset className="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope.value} className="check">
            <input type="checkbox" checked={scopes.has(scope.value)} onChange={(event) => toggle(scope.value, event.target.checked)} />
            <span>
              <strong>{scope.value}</strong> <small className="muted">{scope.hint}</small>
            </span>
          </label>
        ))}
      </fieldset>
      {error && <Notice tone="error" message={error} />}
      <div>
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}

function NewKey({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  const toast = useToast();
  const [copied, setCopied] = useState(false);
  return (
    <section className="card new-key" aria-labelledby="new-key-heading" ref={(element) => element?.scrollIntoView({ block: 'nearest' })}>
      <h2 id="new-key-heading">Your new key “{created.name}”</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Only a hash is stored, so it cannot be shown later.
      </p>
      <div className="inline-form">
        <label className="visually-hidden" htmlFor="raw-key">
          New API key
        </label>
        <input id="raw-key" className="mono" readOnly value={created.raw_key} onFocus={(event) => event.target.select()} />
        <button
          type="button"
          className="button-primary"
          onClick={() =>
            void copyText(created.raw_key).then((ok) => {
              setCopied(ok);
              if (ok) toast.success('Key copied');
              else toast.error('Could not copy; select the key and copy it.');
            })
          }
        >
          {copied ? 'Copied ✓' : 'Copy key'}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
