// The JSON body parser of every route: a body must be UTF-8 and its text well-formed Unicode. Node
// would otherwise decode an invalid byte as U+FFFD, and PostgreSQL's driver encode an unpaired
// surrogate (a `\ud800` escape) the same way, storing text other than what was sent; refused here
// with a 400, once for every field of every route (node data's own check, nodes/json-data.ts, says
// the same of its free-form objects). An empty body is "no body" (POST …/duplicate sends none).
import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { invalid } from '../errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (value or key) holding an unpaired surrogate, walked without recursion. */
function unpairedSurrogateAt(value: unknown): string | undefined {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: `${path}[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      for (const [key, item] of Object.entries(v)) {
        // A key with one is not named in the message (it would carry the surrogate along).
        if (LONE_SURROGATE.test(key)) return path;
        stack.push({ v: item, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return undefined;
}

export function jsonBodyParser(app: FastifyInstance): FastifyBodyParser<Buffer> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (!isUtf8(body)) return done(invalid('Request body is not valid UTF-8'), undefined);
    const text = body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const at = unpairedSurrogateAt(value);
      if (at !== undefined) {
        return done(invalid(`${at || 'body'} holds invalid Unicode: an unpaired UTF-16 surrogate (\\ud800-\\udfff)`), undefined);
      }
      done(null, value);
    });
  };
}
