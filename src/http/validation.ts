// Request validation with Ajv. Bodies are checked strictly (no type coercion: "1" is not a number,
// and unknown fields stay and are rejected); query strings and path params are text on the wire,
// so their values are coerced to the schema's types, a number only from plain decimal digits.
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, removeAdditional: false, useDefaults: true, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: 'array' });

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** What a number in a query string or path may look like; Ajv's coercion (Number()) also takes hex, spaces, signs and exponents. */
const DECIMAL: Record<string, RegExp> = { integer: /^-?[0-9]{1,16}$/, number: /^-?[0-9]{1,16}(\.[0-9]{1,16})?$/ };

/** The properties of an object schema that are numbers, with the text each must be. */
function numericProperties(schema: { properties?: Record<string, { type?: unknown }> }): [string, string, RegExp][] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
    const type = property.type === 'integer' || property.type === 'number' ? property.type : undefined;
    return type ? [[name, type, DECIMAL[type]!] as [string, string, RegExp]] : [];
  });
}

/**
 * Coerced parts (query string, path, headers) check their numbers' text before Ajv coerces it:
 * `limit=0x10`, `limit= 5`, `+5` and `1e1` are 400 rather than read as 16, 5, 5 and 10.
 */
function withDecimalNumbers(validate: Validate, schema: object): Validate {
  const numeric = numericProperties(schema as Parameters<typeof numericProperties>[0]);
  if (numeric.length === 0) return validate;
  const checked: Validate = (data) => {
    if (data !== null && typeof data === 'object') {
      for (const [name, type, pattern] of numeric) {
        const value = (data as Record<string, unknown>)[name];
        for (const text of Array.isArray(value) ? value : [value]) {
          if (typeof text === 'string' && !pattern.test(text)) {
            checked.errors = [
              {
                instancePath: `/${name}`,
                schemaPath: `#/properties/${name}/type`,
                keyword: 'type',
                params: { type },
                message: type === 'integer' ? 'must be a decimal integer (digits 0-9 only)' : 'must be a decimal number',
              },
            ];
            return false;
          }
        }
      }
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  return checked;
}

/**
 * A validator compiled on its first call rather than when the app starts: Fastify asks for every
 * part of every route at start, and Ajv's generated code for all of them was about 0.25 s of CPU in
 * each process that builds the app (a service, a test process, a child server), most of it for
 * routes a process may never serve. As with the serializers (lazy-serializers.ts), a schema Ajv
 * cannot compile now fails that request (500) rather than the start; test/openapi-responses.test.ts
 * reaches every route.
 */
function compiledOnFirstUse(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compiledOnFirstUse(() =>
    httpPart === 'body' ? strict.compile(schema as object) : withDecimalNumbers(coercing.compile(schema as object), schema as object),
  ) as ReturnType<FastifySchemaCompiler<unknown>>;

export function addSharedSchema(schema: { $id: string }): void {
  // The validators are per process and an app may be built more than once (tests, two instances).
  for (const ajv of [strict, coercing]) if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}
