// The app: the session decides between the sign-in pages and the signed-in pages; wouter routes.
// Routes: /login, /signup, /auth/callback, /boards, /boards/:id (also someone else's public board
// opened by its link), /share/:token (a share link: membership, then the board), /keys.
import { lazy, Suspense, useEffect } from 'react';
import { Redirect, Route, Switch, useLocation, useSearch, Link } from 'wouter';
import { CallbackPage } from './auth/callback-page';
import { startSession, useSession, type SessionState } from './auth/session';
import { SignInPage, SignUpPage } from './auth/sign-in-page';
import { BoardsPage } from './boards/boards-page';
import { KeysPage } from './keys/keys-page';
import { OpenShareLink } from './boards/open-share-link';
import { Layout } from './layout';
import { safeNext } from './lib/format';
import { Notice, ToastProvider } from './ui/toast';

const BoardRoute = lazy(() => import('./board-route').then((module) => ({ default: module.BoardRoute })));

export function App() {
  const session = useSession();
  useEffect(() => void startSession(), []);
  return <ToastProvider>{session.status === 'loading' ? <Loading /> : <Pages session={session} />}</ToastProvider>;
}

function Loading() {
  return (
    <p className="loading" role="status">
      Loading…
    </p>
  );
}

function Pages({ session }: { session: Exclude<SessionState, { status: 'loading' }> }) {
  const [location] = useLocation();
  const search = useSearch();
  if (session.status === 'unavailable') {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <h1>Board Workspace is unavailable</h1>
          <Notice tone="error" message={session.message} action={{ label: 'Try again', run: () => void startSession() }} />
        </div>
      </main>
    );
  }
  if (session.status === 'signed-out') {
    const here = `${location}${search ? `?${search}` : ''}`;
    return (
      <Switch>
        <Route path="/login">
          <SignInPage config={session.config} notice={session.notice} />
        </Route>
        <Route path="/signup">
          <SignUpPage config={session.config} />
        </Route>
        <Route path="/auth/callback">
          <CallbackPage />
        </Route>
        <Route>
          <Redirect to={location === '/' ? '/login' : `/login?next=${encodeURIComponent(here)}`} replace />
        </Route>
      </Switch>
    );
  }
  const next = safeNext(new URLSearchParams(search).get('next')) ?? '/boards';
  return (
    <Switch>
      <Route path="/auth/callback">
        <CallbackPage />
      </Route>
      <Route path="/login">
        <Redirect to={next} replace />
      </Route>
      <Route path="/signup">
        <Redirect to={next} replace />
      </Route>
      <Route>
        <Layout user={session.user} expired={session.expired}>
          <Switch>
            <Route path="/">
              <Redirect to="/boards" replace />
            </Route>
            <Route path="/boards">
              <BoardsPage />
            </Route>
            <Route path="/boards/:id">
              {(params) => (
                <Suspense fallback={<Loading />}>
                  <BoardRoute key={params.id} boardId={params.id} />
                </Suspense>
              )}
            </Route>
            <Route path="/share/:token">{(params) => <OpenShareLink key={params.token} token={params.token} />}</Route>
            <Route path="/keys">
              <KeysPage />
            </Route>
            <Route>
              <main className="page">
                <h1>Page not found</h1>
                <p>
                  <Link href="/boards">Go to your boards</Link>
                </p>
              </main>
            </Route>
          </Switch>
        </Layout>
      </Route>
    </Switch>
  );
}
