// Worker thread of the local embedder: embeds batches of texts off the service's thread, so
// vectorizing megabytes never delays HTTP requests (the thread the requests run on only hands
// texts over and takes vectors back). Answers each { id, dimensions, texts } with the vectors as
// one transferred Float64Array (exact values: the same numbers the inline path computes).
import { parentPort } from 'node:worker_threads';
import { embedLocal } from './local.js';

const port = parentPort!;
port.on('message', (message: { id: number; dimensions: number; texts: string[] }) => {
  try {
    const out = new Float64Array(message.texts.length * message.dimensions);
    message.texts.forEach((text, i) => out.set(embedLocal(text, message.dimensions), i * message.dimensions));
    port.postMessage({ id: message.id, vectors: out }, [out.buffer]);
  } catch (error) {
    port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
