// An answer written in pieces as they are made (a board's full read: src/interchange/canvas-service.ts),
// so the whole text is never in memory and a slow client holds back the reading (backpressure).
import { AsyncLocalStorage } from 'node:async_hooks';
import { Readable } from 'node:stream';

/**
 * A stream of `pieces`. Each piece is made in the async context of the call to this function (the
 * request's: its caller at the database's fair pool, src/db/fair-pool.ts), not in that of the
 * socket event that asks for more. A client that goes away ends the pieces' generator (its
 * `finally` blocks run, no more reads).
 */
export function streamedText(pieces: AsyncIterable<string>): Readable {
  const iterator = pieces[Symbol.asyncIterator]();
  const next = AsyncLocalStorage.bind(() => iterator.next());
  const end = AsyncLocalStorage.bind(
    (): Promise<IteratorResult<string>> => iterator.return?.() ?? Promise.resolve({ done: true, value: undefined }),
  );
  // One piece (a page of rows) waits at most: memory stays a page or two per export.
  return Readable.from({ [Symbol.asyncIterator]: () => ({ next, return: end }) }, { objectMode: true, highWaterMark: 1 });
}
