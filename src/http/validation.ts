// Request validation with Ajv. Bodies are checked strictly (no type coercion: "1" is not a number,
// and unknown fields stay and are rejected); query strings and path params are text on the wire,
// so their values are coerced to the schema's types.
import { Ajv, type Options } from 'ajv';
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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

export function addSharedSchema(schema: { $id: string }): void {
  // The validators are per process and an app may be built more than once (tests, two instances).
  for (const ajv of [strict, coercing]) if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
}
