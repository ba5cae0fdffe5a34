// OpenID Connect sign-in done in the browser: the authorization-code flow with PKCE (S256, the
// challenge computed with Web Crypto). The pending request (state, nonce, code_verifier, where to
// return) lives in sessionStorage across the redirect; the tokens live in sessionStorage too, so a
// reload keeps the person signed in while closing the tab forgets them.
import { fetchJson } from '../lib/request';

export interface OidcConfig {
  mode: 'oidc';
  issuer: string;
  client_id: string;
  authorization_endpoint: string;
  token_endpoint: string;
  end_session_endpoint: string | null;
  scope: string;
}

export interface OidcTokens {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshToken?: string;
  idToken?: string;
  email?: string;
}

interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
}

interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
}

const PENDING_KEY = 'bw.oidc.pending';
const TOKENS_KEY = 'bw.oidc.tokens';

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** RFC 7636: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A JWT's claims, unverified: the API verifies tokens; the browser only reads exp, nonce, email. */
function claimsOf(jwt: string): Record<string, unknown> {
  try {
    const part = jwt.split('.')[1] ?? '';
    const padded = part
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(part.length / 4) * 4, '=');
    const json = new TextDecoder().decode(Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)));
    const claims: unknown = JSON.parse(json);
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function redirectUri(): string {
  return `${window.location.origin}/auth/callback`;
}

/** Sends the browser to the identity provider. */
export async function beginSignIn(config: OidcConfig, next: string): Promise<void> {
  const pending: Pending = { state: randomToken(16), nonce: randomToken(16), verifier: randomToken(32), next };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(config.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', config.scope);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  url.searchParams.set('code_challenge', await s256(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  window.location.assign(url.toString());
}

function toTokens(response: TokenResponse, previous?: OidcTokens): OidcTokens {
  if (typeof response.access_token !== 'string' || !response.access_token) throw new Error('The identity provider sent no access token.');
  const exp = claimsOf(response.access_token).exp;
  const expiresAt =
    typeof response.expires_in === 'number'
      ? Date.now() + response.expires_in * 1000
      : typeof exp === 'number'
        ? exp * 1000
        : Date.now() + 5 * 60_000; // neither given: assume a short life
  const idToken = response.id_token ?? previous?.idToken;
  const email = idToken ? claimsOf(idToken).email : undefined;
  return {
    accessToken: response.access_token,
    expiresAt,
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    idToken,
    email: typeof email === 'string' ? email : previous?.email,
  };
}

/** Handles /auth/callback: checks state, exchanges the code for tokens; returns them and where to go. */
export async function completeSignIn(config: OidcConfig, search: string): Promise<{ tokens: OidcTokens; next: string }> {
  const params = new URLSearchParams(search);
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY); // one use only
  const providerError = params.get('error');
  if (providerError) throw new Error(params.get('error_description') ?? `The identity provider refused the sign-in (${providerError}).`);
  const pending = raw ? (JSON.parse(raw) as Pending) : undefined;
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) {
    throw new Error('This sign-in link has expired or was already used. Please sign in again.');
  }
  const response = await fetchJson<TokenResponse>(
    config.token_endpoint,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri(),
        client_id: config.client_id,
        code_verifier: pending.verifier,
      }),
    },
    'The identity provider did not accept the sign-in',
  );
  // The ID token comes straight from the token endpoint over TLS, so its signature need not be
  // checked here (OIDC Core 3.1.3.7); the nonce still ties it to this browser's request.
  if (response.id_token && claimsOf(response.id_token).nonce !== pending.nonce) {
    throw new Error('The sign-in answer did not match this browser’s request. Please sign in again.');
  }
  const tokens = toTokens(response);
  storeTokens(tokens);
  return { tokens, next: pending.next };
}

/** A new access token from a refresh token, when the provider gave one. */
export async function refreshTokens(config: OidcConfig, tokens: OidcTokens): Promise<OidcTokens> {
  if (!tokens.refreshToken) throw new Error('Your session has expired.');
  const response = await fetchJson<TokenResponse>(
    config.token_endpoint,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken, client_id: config.client_id }),
    },
    'The identity provider did not renew the session',
  );
  const renewed = toTokens(response, tokens);
  storeTokens(renewed);
  return renewed;
}

export function storedTokens(): OidcTokens | undefined {
  try {
    const raw = sessionStorage.getItem(TOKENS_KEY);
    return raw ? (JSON.parse(raw) as OidcTokens) : undefined;
  } catch {
    return undefined;
  }
}

function storeTokens(tokens: OidcTokens): void {
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
}

export function forgetTokens(): void {
  sessionStorage.removeItem(TOKENS_KEY);
}

/** Where to send the browser to end the provider's session too, when it offers that. */
export function signOutUrl(config: OidcConfig, tokens: OidcTokens | undefined): string | undefined {
  if (!config.end_session_endpoint) return undefined;
  const url = new URL(config.end_session_endpoint);
  url.searchParams.set('client_id', config.client_id);
  url.searchParams.set('post_logout_redirect_uri', `${window.location.origin}/login`);
  if (tokens?.idToken) url.searchParams.set('id_token_hint', tokens.idToken);
  return url.toString();
}
