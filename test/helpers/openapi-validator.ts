// Checks answers against the served OpenAPI document with ajv (JSON Schema 2020-12, as OpenAPI 3.1
// uses), which shares nothing with the service's own serialiser: the status must be documented for
// the operation, the media type must be one it declares, required headers must be there, and a JSON
// body must match the schema. Objects are checked closed (no property the schema does not name), so
// a body assembled by hand (the board read, event streams) cannot carry what the document omits.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export is the function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject>;
  security?: unknown[];
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}

export interface Checked {
  /** `METHOD /path/{template}`, or undefined when no operation has this path. */
  operation: string | undefined;
  problems: string[];
}

/**
 * Every object schema that names its properties and says nothing of others is closed, except the
 * parts of an allOf (each part names only some of the properties) and an object with an allOf.
 */
function closed(schema: unknown, part = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closed(s, part));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') out[key] = mapValues(value, (v) => closed(v));
    else if (key === 'allOf') out[key] = (value as unknown[]).map((v) => closed(v, true));
    else out[key] = closed(value);
  }
  if (!part && out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined && out.allOf === undefined)
    out.additionalProperties = false;
  return out;
}
const mapValues = (value: unknown, fn: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fn(v)]));

export class ResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: { method: string; template: string; pattern: RegExp; params: number; op: Operation }[] = [];
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(doc: Document) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'openapi', components: closed(doc.components ?? {}) });
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{path\\?\}$|\{path\}$/, '.+');
        const pattern = new RegExp(`^${source.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        this.routes.push({ method: method.toUpperCase(), template, pattern, params: (template.match(/\{/g) ?? []).length, op });
      }
    }
    // The most specific template first: /v1/boards/{id}/duplicate before /v1/boards/{id}/{…}.
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** The operations of the document, as `METHOD /template`, with whether they need credentials. */
  operations(): { key: string; secured: boolean }[] {
    return this.routes.map((r) => ({
      key: `${r.method} ${r.template}`,
      secured: !(Array.isArray(r.op.security) && r.op.security.length === 0),
    }));
  }

  check(method: string, url: string, status: number, headers: Headers, body: string): Checked {
    const path = new URL(url, 'http://x').pathname;
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path));
    if (!route) return { operation: undefined, problems: [`${method} ${path} is not in the document`] };
    const operation = `${method} ${route.template}`;
    const problems: string[] = [];
    const response = route.op.responses[String(status)] ?? route.op.responses[`${String(status)[0]}XX`] ?? route.op.responses.default;
    if (!response) return { operation, problems: [`${operation}: status ${status} is not documented`] };
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && !headers.has(name)) problems.push(`${operation} ${status}: header ${name} is missing`);
    }
    if (body === '' || status === 204 || status === 304) return { operation, problems };
    const type = (headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = response.content?.[type];
    if (!media) {
      problems.push(
        `${operation} ${status}: content type ${type} is not documented (${Object.keys(response.content ?? {}).join(', ') || 'none'})`,
      );
      return { operation, problems };
    }
    if (type !== 'application/json' || media.schema === undefined) return { operation, problems };
    let validate = this.compiled.get(media.schema);
    if (!validate) {
      const schema = JSON.parse(JSON.stringify(closed(media.schema)).replaceAll('"#/components/', '"openapi#/components/'));
      validate = this.ajv.compile(schema);
      this.compiled.set(media.schema, validate);
    }
    if (!validate(JSON.parse(body))) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
      problems.push(`${operation} ${status}: body does not match the schema: ${errors.join('; ')} in ${body.slice(0, 300)}`);
    }
    return { operation, problems };
  }
}
