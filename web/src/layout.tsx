// The frame around every signed-in page: the app name, the main sections, who is signed in, sign
// out, and a banner when the session could not be renewed (the page stays, so drafts survive).
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { signOut, type User } from './auth/session';

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [location] = useLocation();
  const active = location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

export function Layout({ user, expired, children }: { user: User; expired?: boolean; children: ReactNode }) {
  return (
    <div className="app">
      <header className="app-header">
        <Link href="/boards" className="brand">
          Board Workspace
        </Link>
        <nav aria-label="Main" className="nav">
          <NavLink href="/boards">Boards</NavLink>
          <NavLink href="/keys">API keys</NavLink>
          <a href="/docs" className="nav-link" target="_blank" rel="noopener">
            API reference
          </a>
        </nav>
        <div className="account">
          {user.email && (
            <span className="account-email" title="Signed in as">
              {user.email}
            </span>
          )}
          <button type="button" className="button-quiet" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      {expired && (
        <div className="banner" role="alert">
          <span>Your session has ended. Anything you type stays here; sign in again to save it.</span>
          <button type="button" className="button-small" onClick={() => void signOut('Your session ended. Sign in again to continue.')}>
            Sign in again
          </button>
        </div>
      )}
      <div className="app-main">{children}</div>
    </div>
  );
}
