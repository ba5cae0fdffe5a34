// Time-ordered ids (UUIDv7, monotonic within a millisecond) and the service clock.
import { uuidv7 } from 'uuidv7';

export const newId = (): string => uuidv7();
/** Millisecond-precision now: what is stored is exactly what the API shows and cursors carry. */
export const now = (): Date => new Date();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
