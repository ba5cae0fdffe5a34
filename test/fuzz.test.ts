// Property-based fuzzing of every operation in /v1/openapi.json: malformed path ids, query strings,
// bodies (derived from each operation's own schema, then broken) and headers. Every answer must be
// a 4xx error envelope (or a 2xx when the input happens to be valid), never a 5xx, and the server
// must still be healthy at the end. Deterministic: seed 20240611 unless FUZZ_SEED is set.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { BoardBody, JsonSchema, OpenApiDocument } from './helpers/api-types.js';
import { isErrorEnvelope, type TestUser, useServer } from './helpers/harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
// Internals a message must never carry: stack frames ("at fn (file:1:2)"; a bare "at " would also
// match field names such as expires_at), SQL, file paths.
const LEAKS = [/\bat \S.*:\d+:\d+/, /(^|\s)at (async )?[\w$.<>]+ \(/, /\/work/, /SELECT/, /node_modules/, /\/tmp\//];

type Schema = JsonSchema;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema: Schema }[];
  body?: Schema;
}
interface Fixture {
  ids: Record<string, string[]>; // collection name (boards, nodes, …) -> real ids
  all: string[];
}
interface FuzzRequest {
  path: string;
  query: string;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'text'; text: string }
    | { kind: 'bytes'; bytes: Uint8Array<ArrayBuffer> };
  contentType: string | null;
  auth: string | null;
  idempotencyKey: string | null;
}

const server = useServer();
let alice: TestUser;
let bob: TestUser;
const operations: Operation[] = [];

before(async () => {
  alice = await server.user();
  bob = await server.user();
  const doc = (await server.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
});

/** Fresh resources per operation, so a fuzzed DELETE of a real id does not starve the next operation. */
async function makeFixture(): Promise<Fixture> {
  const post = async (path: string, body: unknown, token = alice.token) => {
    const res = await server.request<BoardBody>('POST', path, { token, body });
    assert.ok(res.status === 201, `fixture ${path}: ${res.status} ${res.text}`);
    return res.body.data.id;
  };
  const board = await post('/v1/boards', { name: 'fuzz' });
  const node1 = (await server.makeNode(alice, board, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'a' } })).id;
  const node2 = (await server.makeNode(alice, board, { type: 'url', position: { x: 1, y: 1 }, data: { url: 'https://example.com' } })).id;
  const edge = (await server.makeEdge(alice, board, node1, node2)).id;
  const key = (await alice.keyWith(['read'])).id;
  const foreign = await post('/v1/boards', { name: 'not yours' }, bob.token);
  const ids = { boards: [board], nodes: [node1, node2], edges: [edge], 'api-keys': [key] };
  return { ids, all: [board, node1, node2, edge, key, foreign] };
}

// ---- arbitraries -------------------------------------------------------------------------------

/** encodeURIComponent that survives lone surrogates (it throws on them). */
const enc = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const hugeString = fc.integer({ min: 1_000, max: 300_000 }).map((n) => 'x'.repeat(n));
const weirdString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\uffff',
    '%00',
    '../../etc/passwd',
    "'; DROP TABLE boards; --",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder as hostile input
    '${x}',
    '<script>',
    'null',
    '💥'.repeat(50),
  ),
  hugeString,
);
const weirdNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53 + 1, 1e-300, Number.MAX_SAFE_INTEGER, 1.5),
);
// Nesting deeper than JSON.stringify can recurse (the server's JSON.parse takes it): a marker string
// that send() swaps for the nested text after serialising the rest of the body.
const DEEP = '\u0000deep:';
const deepNesting = fc.tuple(fc.integer({ min: 50, max: 60_000 }), fc.boolean()).map(([depth, arrays]) => `${DEEP}${depth}:${arrays}`);
const expandDeep = (json: string) =>
  json.replace(/"\\u0000deep:(\d+):(true|false)"/g, (_m, depth: string, arrays: string) =>
    arrays === 'true'
      ? `${'['.repeat(Number(depth))}1${']'.repeat(Number(depth))}`
      : `${'{"k":'.repeat(Number(depth))}1${'}'.repeat(Number(depth))}`,
  );
const anyJson = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: weirdString },
);

function idArbitrary(fixture: Fixture, collection?: string): fc.Arbitrary<string> {
  const real = collection && fixture.ids[collection] ? fixture.ids[collection]! : fixture.all;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real) },
    { weight: 1, arbitrary: fc.constantFrom(...fixture.all) },
    { weight: 1, arbitrary: fc.uuid() },
  );
}

/** Values that satisfy a (TypeBox-generated) JSON schema, more or less: the point is to get past validation often. */
function valueFor(schema: Schema, fixture: Fixture, name = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s: Schema) => valueFor(s, fixture, name)));
  if (schema.allOf) return valueFor(Object.assign({}, ...schema.allOf) as Schema, fixture, name);
  switch (schema.type) {
    case 'string':
      if (schema.format === 'uuid') return idArbitrary(fixture, name.includes('node') ? 'nodes' : undefined);
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc.string({
            unit: 'grapheme',
            minLength: Math.max(1, schema.minLength ?? 0),
            maxLength: Math.min(schema.maxLength ?? 40, 40),
          }),
        },
        // Any code point, NUL and control characters included.
        {
          weight: 1,
          arbitrary: fc.string({
            unit: 'binary',
            minLength: Math.max(1, schema.minLength ?? 0),
            maxLength: Math.min(schema.maxLength ?? 40, 40),
          }),
        },
        { weight: 2, arbitrary: fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'a\u001fb', '\u202e') },
      );
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1e6, -1e6), max: Math.min(schema.maximum ?? 1e6, 1e6) });
    case 'number':
      return fc.double({
        min: Math.max(schema.minimum ?? -1e6, -1e6),
        max: Math.min(schema.maximum ?? 1e6, 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.uniqueArray(valueFor(schema.items ?? {}, fixture, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      if (Object.keys(properties).length === 0) return freeObject;
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, s] of Object.entries(properties)) record[key] = valueFor(s, fixture, key);
      const shaped = fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
      if (!('type' in properties && 'data' in properties)) return shaped;
      // Nodes: data keys depend on the type, so give half the runs a matching pair to get past the services' checks.
      return fc.tuple(shaped, fc.boolean(), nodeShape).map(([value, match, [type, data]]) => (match ? { ...value, type, data } : value));
    }
    default:
      return anyJson;
  }
}

/** Free-form objects (node data, edge data) with the keys the services look at, valid or not. */
const freeObject = fc.dictionary(
  fc.oneof(
    fc.constantFrom('text', 'url', 'label', 'storagePath', 'publicUrl', 'fileSize', 'width', 'color', '__proto__', 'constructor'),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(
    fc.constantFrom('https://example.com/a', 'http://x', 'javascript:alert(1)', 'ftp://x', 'not a url', '', null, 123, -1, 1.5),
    weirdString,
    anyJson,
  ),
  { maxKeys: 5 },
);

const nodeShape: fc.Arbitrary<[string, Record<string, unknown>]> = fc.oneof(
  fc.tuple(
    fc.constant('note'),
    fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 50 }), label: fc.string() }, { requiredKeys: ['text'] }),
  ),
  fc.tuple(
    fc.constantFrom('url', 'video', 'youtube'),
    fc.record({ url: fc.webUrl(), width: weirdNumber, extra: anyJson }, { requiredKeys: ['url'] }),
  ),
  fc.tuple(fc.constant('document'), fc.record({ text: fc.string(), url: fc.webUrl() }, { requiredKeys: ['text'] })),
  fc.tuple(fc.constantFrom('pdf', 'image'), fc.record({ storagePath: fc.string(), publicUrl: fc.webUrl(), fileSize: fc.integer() })),
);

/** A schema-shaped value with some properties broken (wrong type), dropped, or extra. */
function brokenValue(schema: Schema, fixture: Fixture): fc.Arbitrary<unknown> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const keys = Object.keys(properties);
  if (schema.type !== 'object' || keys.length === 0) return anyJson;
  return fc
    .tuple(
      valueFor(schema, fixture) as fc.Arbitrary<Record<string, unknown>>,
      fc.subarray(keys),
      fc.array(fc.oneof(anyJson, weirdString, weirdNumber), { minLength: keys.length, maxLength: keys.length }),
      fc.subarray(keys),
      fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 2 }),
    )
    .map(([valid, broken, replacements, dropped, extra]) => {
      const out: Record<string, unknown> = { ...valid };
      broken.forEach((k, i) => (out[k] = replacements[i]));
      for (const k of dropped) delete out[k];
      return { ...out, ...extra };
    });
}

function requestArbitrary(op: Operation, fixture: Fixture): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const garbageId = fc.oneof(
    fc.constantFrom(
      '%00',
      '..%2F..%2Fetc%2Fpasswd',
      '..',
      '%2e%2e',
      'null',
      '0',
      '-1',
      '%zz',
      '%',
      '%E0%A4%A',
      '%20',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).map(enc),
    fc.integer({ min: 50, max: 5_000 }).map((n) => 'a'.repeat(n)),
  );
  const pathArb = fc
    .tuple(
      ...pathParams.map((p) => {
        const segments = op.path.split('/');
        const collection = segments[segments.indexOf(`{${p.name}}`) - 1];
        return fc.oneof(
          { weight: 3, arbitrary: idArbitrary(fixture, p.name === 'boardId' ? 'boards' : collection) },
          { weight: 2, arbitrary: garbageId },
        );
      }),
    )
    .map((values) => pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, values[i]!), op.path));

  const queryParams = op.params.filter((p) => p.in === 'query');
  const queryValue = fc.oneof(
    weirdString.map((s) => s.slice(0, 500)),
    fc.constantFrom('1e309', '-1', '0', '101', '99999999999999999999999', 'NaN', '', '[]', '{}', 'true', '%00', '1.5'),
  );
  const queryPair = fc.oneof(
    ...queryParams.map((p) => fc.tuple(fc.constant(p.name), fc.oneof(valueFor(p.schema, fixture, p.name).map(String), queryValue))),
    fc.tuple(
      fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('limit[]', 'limit[a]', '__proto__', 'constructor[prototype]')),
      queryValue,
    ),
  );
  const queryArb = fc.tuple(fc.array(queryPair, { maxLength: 5 }), fc.boolean(), fc.nat({ max: 300 })).map(([pairs, raw, repeat]) => {
    const parts = pairs.map(([k, v]) => (raw ? `${k}=${v}`.replace(/[#\s]/g, '') : `${enc(k)}=${enc(v)}`));
    // The same parameter a thousand times; kept short so the URL mostly stays under Node's
    // 16 KiB header limit (beyond it the HTTP layer answers 431, which is exercised too).
    if (repeat > 270 && pairs.length > 0) parts.push(...Array(1000).fill(`${enc(pairs[0]![0]).slice(0, 10)}=${repeat % 3}`));
    return parts.length ? `?${parts.join('&')}` : '';
  });

  const canHaveBody = op.method !== 'GET' && op.method !== 'HEAD';
  const bodyArb: fc.Arbitrary<FuzzRequest['body']> = canHaveBody
    ? fc.oneof(
        {
          weight: op.body ? 4 : 1,
          arbitrary: (op.body ? valueFor(op.body, fixture) : anyJson).map((value) => ({ kind: 'json' as const, value })),
        },
        {
          weight: op.body ? 4 : 1,
          arbitrary: (op.body ? brokenValue(op.body, fixture) : anyJson).map((value) => ({ kind: 'json' as const, value })),
        },
        { weight: 1, arbitrary: anyJson.map((value) => ({ kind: 'json' as const, value })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
        {
          weight: 1,
          arbitrary: fc
            .oneof(fc.string({ maxLength: 50 }), fc.constantFrom('{', '{"a":', '[1,', '{"name":"x"}}', '\ufeff{}'))
            .map((text) => ({ kind: 'text' as const, text })),
        },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ kind: 'bytes' as const, bytes: Uint8Array.from(b) })) },
      )
    : fc.constant({ kind: 'none' as const });

  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        null,
        'text/plain',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/json;;',
        '*/*',
        'application/vnd.api+json',
        '',
      ),
    },
    { weight: 1, arbitrary: printable },
  );
  const auth = fc.oneof(
    { weight: 10, arbitrary: fc.constant(`Bearer ${alice.token}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${bob.token}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        null,
        '',
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'bearer bwk_test_x',
        `Bearer ${alice.token}x`,
        'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
        `Bearer ${'a'.repeat(5000)}`,
        'Bearer a b c',
      ),
    },
    { weight: 1, arbitrary: printable.map((s) => `Bearer ${s}`) },
  );
  const idempotencyKey = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: printable },
    { weight: 1, arbitrary: fc.constantFrom('', 'k'.repeat(256), 'k'.repeat(255)) },
  );

  const wild = fc.record({ path: pathArb, query: queryArb, body: bodyArb, contentType, auth, idempotencyKey });
  // Half the runs keep everything but the body (and the query) plausible, so the services are reached.
  const realPath = fc
    .tuple(
      ...pathParams.map((p) => {
        const segments = op.path.split('/');
        return idArbitrary(fixture, p.name === 'boardId' ? 'boards' : segments[segments.indexOf(`{${p.name}}`) - 1]);
      }),
    )
    .map((values) => pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, values[i]!), op.path));
  const saneBody =
    canHaveBody && op.body
      ? valueFor(op.body, fixture).map((value) => ({ kind: 'json' as const, value }))
      : fc.constant({ kind: 'none' as const });
  const sane = fc.record({
    path: realPath,
    query: fc.oneof(fc.constant(''), queryArb),
    body: fc.oneof(saneBody, bodyArb),
    contentType: fc.constant('application/json'),
    auth: fc.constant(`Bearer ${alice.token}`),
    idempotencyKey: fc.oneof(
      fc.constant(null),
      printable.filter((k) => k.length > 0),
    ),
  });
  return fc.oneof(sane, wild);
}

async function send(op: Operation, req: FuzzRequest) {
  const headers: Record<string, string> = {};
  if (req.auth !== null) headers.authorization = req.auth;
  if (req.idempotencyKey !== null) headers['idempotency-key'] = req.idempotencyKey;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (req.body.kind === 'json') body = expandDeep(JSON.stringify(req.body.value) ?? 'null');
  else if (req.body.kind === 'text') body = req.body.text;
  else if (req.body.kind === 'bytes') body = req.body.bytes;
  if (req.contentType !== null && (body !== undefined || req.contentType !== 'application/json')) headers['content-type'] = req.contentType;
  const res = await fetch(`${server.url}${req.path}${req.query}`, { method: op.method, headers, body });
  const text = await res.text();
  return { status: res.status, text };
}

/** A counterexample small enough to read: long strings and deep values cut short. */
function abridge(value: unknown): string {
  const cut = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > 120 ? `${v.slice(0, 120)}…(${v.length} chars)` : v;
    if (v instanceof Uint8Array) return `<${v.length} bytes>`;
    if (v === null || typeof v !== 'object') return v;
    if (depth > 4) return '…';
    if (Array.isArray(v)) return v.slice(0, 10).map((x) => cut(x, depth + 1));
    return Object.fromEntries(
      Object.entries(v)
        .slice(0, 20)
        .map(([k, x]) => [k, cut(x, depth + 1)]),
    );
  };
  return JSON.stringify(cut(value, 0));
}

const isJsonRpcError = (body: unknown): body is { jsonrpc: '2.0'; error: { code: number; message: string } } =>
  typeof body === 'object' &&
  body !== null &&
  (body as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
  typeof (body as { error?: { code?: unknown } }).error?.code === 'number' &&
  typeof (body as { error?: { message?: unknown } }).error?.message === 'string';

function check(op: Operation, req: FuzzRequest, res: { status: number; text: string }): void {
  const where = `${op.method} ${req.path.slice(0, 200)}${req.query.slice(0, 200)}`;
  assert.ok(res.status < 500, `${where} answered ${res.status}: ${res.text.slice(0, 300)}`);
  assert.ok(res.status < 300 || res.status >= 400, `${where} answered ${res.status}`);
  if (res.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      assert.fail(`${where}: ${res.status} is not JSON: ${res.text.slice(0, 200)}`);
    }
    // The MCP transport answers its own refusals (406, a malformed JSON-RPC message) as the
    // protocol says: a JSON-RPC error object, which MCP clients read.
    if (op.path === '/v1/mcp' && isJsonRpcError(body)) {
      for (const leak of LEAKS) assert.ok(!leak.test(body.error.message), `${where}: message leaks ${leak}: ${body.error.message}`);
      return;
    }
    assert.ok(isErrorEnvelope(body, res.status), `${where}: not an error envelope: ${res.text.slice(0, 300)}`);
    for (const leak of LEAKS) assert.ok(!leak.test(body.message), `${where}: message leaks ${leak}: ${body.message}`);
  }
}

describe(`fuzzing every operation (seed ${SEED}, ${RUNS} runs each; FUZZ_SEED and FUZZ_RUNS override)`, () => {
  test('the OpenAPI document lists the operations', () => {
    assert.ok(operations.length >= 10, `only ${operations.length} operations`);
  });

  // One test per operation, created once the document is known.
  test('no input gives a 5xx or a bare error', async (t) => {
    for (const [index, op] of operations.entries()) {
      await t.test(`${op.method} ${op.path}`, async (st) => {
        const fixture = await makeFixture();
        const statuses: Record<number, number> = {};
        const details = await fc.check(
          fc.asyncProperty(requestArbitrary(op, fixture), async (req) => {
            const res = await send(op, req);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            check(op, req, res);
          }),
          { numRuns: RUNS, seed: SEED + index, endOnFailure: process.env.FUZZ_SHRINK !== '1' },
        );
        // How far the inputs got (2xx means validation was passed), shown in the TAP output.
        st.diagnostic(`statuses ${JSON.stringify(statuses)}`);
        if (details.failed) {
          const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
          assert.fail(
            `${error.slice(0, 600)}\n  input: ${abridge(details.counterexample)}\n  replay: FUZZ_SEED=${SEED} (seed ${details.seed}, path ${details.counterexamplePath})`,
          );
        }
      });
    }
  });

  test('the server is still healthy', async () => {
    const health = await server.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal((await server.request('GET', '/v1/boards', { token: alice.token })).status, 200);
  });
});
