// The error envelope every failure answers (src/errors.ts renders an ApiError as it): its schema,
// registered once as `Error` for the routes' error responses, and its type, derived from it.
import { type Static, Type } from '@sinclair/typebox';

const envelope = Type.Object(
  {
    object: Type.Literal('error'),
    status: Type.Integer(),
    code: Type.String(),
    message: Type.String(),
  },
  { $id: 'Error', description: 'Error envelope' },
);
/** The schema, with the `$id` it is registered under. */
export const ErrorEnvelope = envelope as typeof envelope & { $id: string };
export type ErrorEnvelope = Static<typeof envelope>;
