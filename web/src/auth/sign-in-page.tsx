// Sign-in and sign-up pages. Local mode: email and password forms with the API's messages shown
// as they come (wrong password, taken email, rate limit). OIDC mode: one button that starts the
// provider's sign-in; the callback page finishes it.
import { useState, type FormEvent } from 'react';
import { Link, useSearch } from 'wouter';
import { messageOf } from '../lib/request';
import { safeNext } from '../lib/format';
import { Notice } from '../ui/toast';
import { beginProviderSignIn, signIn, signUp, type AuthConfig } from './session';
import { useDocumentTitle } from '../lib/title';

const MIN_PASSWORD = 8;

function useNext(): string {
  return safeNext(new URLSearchParams(useSearch()).get('next')) ?? '/boards';
}

function withNext(path: string, next: string): string {
  return next === '/boards' ? path : `${path}?next=${encodeURIComponent(next)}`;
}

function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand auth-brand">Board Workspace</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

function CredentialsForm({
  submitLabel,
  busyLabel,
  newPassword,
  onSubmit,
}: {
  submitLabel: string;
  busyLabel: string;
  newPassword: boolean;
  onSubmit(email: string, password: string): Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(trimmed)) return setError('Enter an email address such as name@example.com.');
    if (newPassword && password.length < MIN_PASSWORD) return setError(`Use at least ${MIN_PASSWORD} characters for your password.`);
    if (!password) return setError('Enter your password.');
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(trimmed, password);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
      <label className="field">
        <span>Email</span>
        <input type="email" autoComplete="email" value={email} onChange={(event) => setEmail(event.target.value)} autoFocus required />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          type="password"
          autoComplete={newPassword ? 'new-password' : 'current-password'}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          required
          minLength={newPassword ? MIN_PASSWORD : undefined}
        />
        {newPassword && <small className="muted">At least {MIN_PASSWORD} characters.</small>}
      </label>
      {error && <Notice tone="error" message={error} />}
      <button type="submit" className="button-primary" disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </button>
    </form>
  );
}

export function SignInPage({ config, notice }: { config: AuthConfig; notice?: string }) {
  useDocumentTitle('Sign in');
  const next = useNext();
  if (config.mode === 'oidc') return <ProviderSignIn next={next} notice={notice} />;
  return (
    <AuthCard title="Sign in">
      {notice && <Notice tone="info" message={notice} />}
      <CredentialsForm submitLabel="Sign in" busyLabel="Signing in…" newPassword={false} onSubmit={signIn} />
      {config.signup && (
        <p className="muted">
          No account yet? <Link href={withNext('/signup', next)}>Create one</Link>
        </p>
      )}
    </AuthCard>
  );
}

export function SignUpPage({ config }: { config: AuthConfig }) {
  useDocumentTitle('Create an account');
  const next = useNext();
  if (config.mode === 'oidc') return <ProviderSignIn next={next} />;
  if (!config.signup) {
    return (
      <AuthCard title="Create an account">
        <Notice tone="info" message="New accounts are not open on this service. Ask an administrator for one." />
        <p className="muted">
          <Link href={withNext('/login', next)}>Sign in</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account">
      <CredentialsForm submitLabel="Create account" busyLabel="Creating account…" newPassword onSubmit={signUp} />
      <p className="muted">
        Already have an account? <Link href={withNext('/login', next)}>Sign in</Link>
      </p>
    </AuthCard>
  );
}

function ProviderSignIn({ next, notice }: { next: string; notice?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const go = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await beginProviderSignIn(next);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  return (
    <AuthCard title="Sign in">
      {notice && <Notice tone="info" message={notice} />}
      <p className="muted">This service uses your organisation’s sign-in.</p>
      {error && <Notice tone="error" message={error} />}
      <button type="button" className="button-primary" onClick={() => void go()} disabled={busy}>
        {busy ? 'Redirecting…' : 'Continue to sign-in'}
      </button>
    </AuthCard>
  );
}
