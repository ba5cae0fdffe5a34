// The web app's one way to reach the API: the typed client generated from /v1/openapi.json
// (@board-workspace/client), same origin, with the current access token and one transparent
// refresh-and-retry when the token has expired. The session module (auth) registers how tokens
// are obtained and renewed; everything else only imports `api`, `authorizedFetch`,
// `accessToken` and `renewOnce` from here.
import { createBoardClient, errorMessage, type Schemas } from '@board-workspace/client';

export { errorMessage };
export type { Schemas };

interface TokenSource {
  /** The current access token, if signed in. */
  current(): string | undefined;
  /** Gets a new access token (refresh cookie or identity provider); undefined when signed out. */
  renew(): Promise<string | undefined>;
}

let tokens: TokenSource = { current: () => undefined, renew: async () => undefined };
let renewing: Promise<string | undefined> | undefined;

/** Called by the session module once it knows how to get tokens. */
export function setTokenSource(source: TokenSource): void {
  tokens = source;
}

/** The current access token, renewed first when there is none (for XHR uploads with progress). */
export async function accessToken(): Promise<string | undefined> {
  return tokens.current() ?? renewOnce();
}

/** A new access token, for a request made outside `authorizedFetch` that was answered 401. */
export function renewOnce(): Promise<string | undefined> {
  renewing ??= tokens.renew().finally(() => {
    renewing = undefined;
  });
  return renewing;
}

/**
 * fetch with the bearer token; on a 401 the token is renewed once and the request sent again.
 * Used by the typed client and directly for streamed chat replies (text/event-stream).
 */
export async function authorizedFetch(input: Request | string, init?: RequestInit): Promise<Response> {
  const request = new Request(input, { credentials: 'same-origin', ...init });
  const send = (token: string | undefined): Promise<Response> => {
    const attempt = request.clone();
    if (token) attempt.headers.set('authorization', `Bearer ${token}`);
    return fetch(attempt);
  };
  // No usable token while signed in (expired, or about to): renew before sending rather than
  // collecting a 401 first. Signed out, renew answers undefined at once.
  const token = tokens.current() ?? (await renewOnce());
  const response = await send(token);
  if (response.status !== 401) return response;
  const renewed = await renewOnce();
  return renewed && renewed !== token ? send(renewed) : response;
}

export const api = createBoardClient({ fetch: (request: Request) => authorizedFetch(request) });
