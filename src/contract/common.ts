// Shape pieces every resource is built from: ids, timestamps, free-form objects. The contract's
// modules (src/contract/*) hold each resource's schemas, which are the one definition of its shape:
// routes validate, serialise and document with them, services type their inputs and outputs as
// their Static<> types. Nothing here knows HTTP; the envelopes are in src/http, but for the list's
// (List), which the events page extends.
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
/** A create's optional client-chosen id (docs/api.md, "Replaying a queue of edits safely"). */
export const clientId = (what: 'node' | 'edge') =>
  Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        `A UUID of your choosing for the new ${what} (omitted: the service chooses one). The same create repeated with the same id ` +
        `and the same body answers 201 with the ${what} as it is now and writes nothing; the id with another body, or an id ` +
        'any other node or edge has or had (deleted ones included), is 409 conflict.',
    }),
  );
/** A timestamp in a response: the service holds Dates, serialised as ISO 8601 UTC with milliseconds. */
export const Timestamp = Type.Unsafe<Date>({ type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });
/** A timestamp in a request. */
export const TimestampInput = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const FreeObject = Type.Object({}, { additionalProperties: true });

/** The names of an object schema's properties, in its order: the columns a query selects for it. */
export function fieldsOf<T extends TObject>(schema: T): Array<keyof Static<T> & string> {
  return Object.keys(schema.properties) as Array<keyof Static<T> & string>;
}

/**
 * Only the schema's properties of a row that has more, in the schema's order: for a row already in
 * hand (a query that must read more columns) where the shape is serialised by hand.
 */
export function pickShape<T extends TObject>(schema: T, row: Static<T>): Static<T> {
  return Object.fromEntries(fieldsOf(schema).map((key) => [key, row[key]])) as Static<T>;
}

/** A page of a list: its items, whether more follow, and the cursor that continues it. */
export function List<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    cursor: Type.Union([Type.String(), Type.Null()]),
  });
}
