// /auth/callback: where the identity provider sends the browser back with ?code&state. Exchanges
// the code (session.completeProviderSignIn), then goes where the person was heading.
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { messageOf } from '../lib/request';
import { safeNext } from '../lib/format';
import { Notice } from '../ui/toast';
import { completeProviderSignIn } from './session';

export function CallbackPage() {
  const [, navigate] = useLocation();
  const [error, setError] = useState<string>();
  useEffect(() => {
    completeProviderSignIn(window.location.search).then(
      (next) => navigate(safeNext(next) ?? '/boards', { replace: true }),
      (failure: unknown) => setError(messageOf(failure, 'Signing in failed')),
    );
  }, [navigate]);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand auth-brand">Board Workspace</p>
        {error ? (
          <>
            <h1>Sign-in failed</h1>
            <Notice tone="error" message={error} />
            <p>
              <Link href="/login">Try again</Link>
            </p>
          </>
        ) : (
          <p className="muted">Signing you in…</p>
        )}
      </div>
    </main>
  );
}
