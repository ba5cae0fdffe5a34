// Turns a typed client call into its data or a readable error, so every page shows the API's own
// message (the contract's error envelope) and a plain sentence when the server cannot be reached.
import { errorMessage } from '../api';
import { ApiError, answerFields } from './api-error';

export { ApiError };

export const OFFLINE_MESSAGE = 'Could not reach the server. Check your connection and try again.';
/**
 * What a 401 means to a person: authorizedFetch has already tried to renew the token, so the sign-in
 * has ended (the app's banner says so too); the envelope's own words ("Missing bearer token…") are
 * for API clients.
 */
export const SESSION_ENDED_MESSAGE = 'Your session has ended. Sign in again to save this.';

/** The message of a failed API answer: the envelope's, except for a 401 (see SESSION_ENDED_MESSAGE). */
export function failureMessage(status: number, envelope: unknown, fallback: string): string {
  return status === 401 ? SESSION_ENDED_MESSAGE : errorMessage(envelope, `${fallback} (HTTP ${status})`);
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Awaits an `api.GET/POST/…` call: its data, or an ApiError carrying the envelope's message. */
export async function unwrap<T>(call: Promise<Outcome<T>>, fallback: string): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(OFFLINE_MESSAGE);
  }
  const { response } = outcome;
  if (outcome.error !== undefined || !response.ok) {
    throw new ApiError(failureMessage(response.status, outcome.error, fallback), answerFields(response, outcome.error));
  }
  return outcome.data as T;
}

/** The message to show for anything thrown. */
export function messageOf(error: unknown, fallback = 'Something went wrong'): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return OFFLINE_MESSAGE; // fetch rejects with TypeError when offline
  return error instanceof Error && error.message ? error.message : fallback;
}

/** JSON request outside the typed client (sign-in endpoints, identity provider); readable errors. */
export async function fetchJson<T>(input: string, init: RequestInit, fallback: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch {
    throw new ApiError(OFFLINE_MESSAGE);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const envelope = body as { error?: unknown; error_description?: unknown } | undefined;
    // Our envelope first, then OAuth's { error, error_description } from an identity provider.
    const oauth =
      typeof envelope?.error_description === 'string'
        ? envelope.error_description
        : typeof envelope?.error === 'string'
          ? envelope.error
          : undefined;
    const message = errorMessage(body, oauth ?? `${fallback} (HTTP ${response.status})`);
    throw new ApiError(message, answerFields(response, body));
  }
  return body as T;
}
