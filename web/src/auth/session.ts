// The session: which sign-in mode the service uses (GET /v1/auth/config), who is signed in, and
// the access token. Local mode keeps the token in memory only and renews it with the HttpOnly
// refresh cookie (on load, shortly before it expires, and on a 401 through api.ts); OIDC mode uses
// the provider's tokens (oidc.ts). A module-level store (not React state) so that one refresh runs
// at a time even when React mounts twice, and so api.ts can ask for tokens outside components.
import { useSyncExternalStore } from 'react';
import { authorizedFetch, setTokenSource } from '../api';
import { ApiError, fetchJson, OFFLINE_MESSAGE } from '../lib/request';
import { readMeta, writeMeta } from '../board/canvas/sync/store';
import * as oidc from './oidc';

export interface LocalConfig {
  mode: 'local';
  signup: boolean;
  /** The config request carried a refresh cookie: only then is there a session to restore. */
  session?: boolean;
}
export type AuthConfig = LocalConfig | oidc.OidcConfig;

export interface User {
  id: string;
  email: string | null;
}

export type SessionState =
  | { status: 'loading' }
  | { status: 'unavailable'; message: string }
  | { status: 'signed-out'; config: AuthConfig; notice?: string }
  /** `expired`: the token could not be renewed; the page stays so nothing typed is lost. */
  | { status: 'signed-in'; config: AuthConfig; user: User; expired?: boolean };

interface LocalSession {
  access_token: string;
  expires_in: number;
  user: User;
}

let state: SessionState = { status: 'loading' };
const listeners = new Set<() => void>();
let token: { value: string; expiresAt: number; margin: number } | undefined;
let oidcTokens: oidc.OidcTokens | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
let renewing: Promise<string | undefined> | undefined;
let starting: Promise<void> | undefined;
const callbacks = new Map<string, Promise<string>>();

/** Who was signed in last on this device, so the app opens while the service is down (offline edits). */
const LAST_SESSION_KEY = 'bw-last-session';

/** Kept in IndexedDB (no token: the access token lives in memory only). */
function rememberSession(next: SessionState): void {
  if (next.status === 'signed-in') void writeMeta(LAST_SESSION_KEY, { config: next.config, user: next.user });
  else if (next.status === 'signed-out') void writeMeta(LAST_SESSION_KEY, undefined);
}

function setState(next: SessionState): void {
  rememberSession(next);
  state = next;
  for (const listener of listeners) listener();
}

export function useSession(): SessionState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

export function sessionState(): SessionState {
  return state;
}

setTokenSource({
  // A token near its expiry (the last 10 s, or the last quarter of a shorter life) is treated as
  // gone, so the request renews first instead of failing.
  current: () => (token && token.expiresAt - token.margin > Date.now() ? token.value : undefined),
  renew: () => renew(),
});

function configOf(): AuthConfig | undefined {
  return 'config' in state ? state.config : undefined;
}

/** Renewal a little before expiry: at 80 % of the token's life, at least 5 s from now. */
function scheduleRenewal(expiresAt: number): void {
  clearTimeout(renewTimer);
  const life = expiresAt - Date.now();
  renewTimer = setTimeout(() => void renew(), Math.min(Math.max(life * 0.8, 5_000), 2 ** 31 - 1));
}

function adoptToken(value: string, expiresAt: number): void {
  token = { value, expiresAt, margin: Math.min(10_000, Math.max(0, (expiresAt - Date.now()) / 4)) };
  scheduleRenewal(expiresAt);
}

function clearSession(): void {
  clearTimeout(renewTimer);
  token = undefined;
  oidcTokens = undefined;
}

/** Serialises refreshes across tabs: two tabs presenting the same rotated cookie would look like reuse. */
async function exclusively<T>(work: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? (locks.request('bw-session-refresh', work) as Promise<T>) : work();
}

function postLocal(path: string, body?: unknown): Promise<LocalSession> {
  return fetchJson<LocalSession>(
    `/v1/auth/${path}`,
    {
      method: 'POST',
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    'Signing in failed',
  );
}

function adoptLocal(config: AuthConfig, session: LocalSession): void {
  adoptToken(session.access_token, Date.now() + session.expires_in * 1000);
  setState({ status: 'signed-in', config, user: session.user });
}

/** One renewal at a time; undefined when the session cannot be renewed. */
function renew(): Promise<string | undefined> {
  renewing ??= renewNow().finally(() => {
    renewing = undefined;
  });
  return renewing;
}

async function renewNow(): Promise<string | undefined> {
  const config = configOf();
  if (!config || state.status !== 'signed-in') return undefined;
  try {
    if (config.mode === 'local') {
      const session = await exclusively(() => postLocal('refresh'));
      adoptLocal(config, session);
      return session.access_token;
    }
    if (!oidcTokens?.refreshToken) throw new Error('Your session has expired.');
    oidcTokens = await oidc.refreshTokens(config, oidcTokens);
    adoptToken(oidcTokens.accessToken, oidcTokens.expiresAt);
    if (state.status === 'signed-in' && state.expired) setState({ ...state, expired: false });
    return oidcTokens.accessToken;
  } catch (error) {
    // Offline: keep the session and try again later. Refused: keep the page (drafts survive) and
    // ask the person to sign in again.
    if (error instanceof ApiError && error.unreachable) {
      scheduleRenewal(Date.now() + 30_000);
      return undefined;
    }
    clearSession();
    if (state.status === 'signed-in') setState({ ...state, expired: true });
    return undefined;
  }
}

async function loadUser(fallbackEmail?: string): Promise<User> {
  try {
    const response = await authorizedFetch('/v1/me');
    if (response.ok) {
      const me = (await response.json()) as { id: string; email: string | null };
      return { id: me.id, email: me.email ?? fallbackEmail ?? null };
    }
  } catch {
    // the header then shows the provider's email claim, if any
  }
  return { id: '', email: fallbackEmail ?? null };
}

/** Loads the mode and restores a session (refresh cookie or stored provider tokens). Idempotent. */
export function startSession(): Promise<void> {
  starting ??= start().finally(() => {
    if (state.status === 'unavailable') starting = undefined; // allow "Try again"
  });
  return starting;
}

async function start(): Promise<void> {
  setState({ status: 'loading' });
  let config: AuthConfig;
  try {
    config = await fetchJson<AuthConfig>(
      '/v1/auth/config',
      { headers: { accept: 'application/json' } },
      'Could not load the sign-in settings',
    );
  } catch (error) {
    // The service cannot be reached: someone signed in here before keeps working on what this
    // device holds (the board as last seen, edits kept in the outbox); the token is renewed
    // when the service is back (api.ts renews before each request).
    const last = await readMeta<{ config: AuthConfig; user: User }>(LAST_SESSION_KEY);
    if (last && error instanceof ApiError && error.unreachable) {
      setState({ status: 'signed-in', config: last.config, user: last.user });
      return;
    }
    setState({ status: 'unavailable', message: error instanceof Error ? error.message : OFFLINE_MESSAGE });
    return;
  }
  if (config.mode === 'local') {
    // No refresh cookie: signed out, without a refresh request bound to fail (a 401 in the console).
    if (config.session === false) {
      setState({ status: 'signed-out', config });
      return;
    }
    try {
      adoptLocal(config, await exclusively(() => postLocal('refresh')));
    } catch {
      setState({ status: 'signed-out', config });
    }
    return;
  }
  let stored = oidc.storedTokens();
  if (stored && stored.expiresAt - 10_000 <= Date.now()) {
    stored = stored.refreshToken ? await oidc.refreshTokens(config, stored).catch(() => undefined) : undefined;
  }
  if (!stored) {
    oidc.forgetTokens();
    setState({ status: 'signed-out', config });
    return;
  }
  await adoptOidc(config, stored);
}

async function adoptOidc(config: oidc.OidcConfig, tokens: oidc.OidcTokens): Promise<void> {
  oidcTokens = tokens;
  adoptToken(tokens.accessToken, tokens.expiresAt);
  setState({ status: 'signed-in', config, user: await loadUser(tokens.email) });
}

export async function signIn(email: string, password: string): Promise<void> {
  const config = configOf();
  if (config?.mode !== 'local') throw new Error('Email sign-in is not available.');
  adoptLocal(config, await postLocal('login', { email, password }));
}

export async function signUp(email: string, password: string): Promise<void> {
  const config = configOf();
  if (config?.mode !== 'local') throw new Error('Sign-up is not available.');
  adoptLocal(config, await postLocal('signup', { email, password }));
}

/** OIDC: off to the identity provider; it comes back to /auth/callback. */
export async function beginProviderSignIn(next: string): Promise<void> {
  const config = configOf();
  if (config?.mode !== 'oidc') throw new Error('This service does not use an identity provider.');
  await oidc.beginSignIn(config, next);
}

/** OIDC callback: exchanges the code once (React may mount the page twice) and returns the next path. */
export function completeProviderSignIn(search: string): Promise<string> {
  let pending = callbacks.get(search);
  if (!pending) {
    pending = (async () => {
      await startSession();
      const config = configOf();
      if (config?.mode !== 'oidc') throw new Error('This service does not use an identity provider.');
      const { tokens, next } = await oidc.completeSignIn(config, search);
      await adoptOidc(config, tokens);
      return next;
    })();
    callbacks.set(search, pending);
  }
  return pending;
}

/** Signs out here (and at the provider when it offers an end-session endpoint). */
export async function signOut(notice?: string): Promise<void> {
  const config = configOf();
  if (!config) return;
  if (config.mode === 'local') {
    await fetch('/v1/auth/logout', { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
    clearSession();
    setState({ status: 'signed-out', config, notice });
    return;
  }
  const leave = oidc.signOutUrl(config, oidcTokens ?? oidc.storedTokens());
  oidc.forgetTokens();
  clearSession();
  setState({ status: 'signed-out', config, notice });
  if (leave && !notice) window.location.assign(leave);
}
