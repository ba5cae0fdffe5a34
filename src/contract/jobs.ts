// Jobs: a background job as its creator polls it.
import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from './common.js';

export const Job = Type.Object({
  id: Uuid,
  type: Type.String({ description: 'document_process' }),
  status: Type.Union([Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
  result: Type.Union([Type.Object({}, { additionalProperties: true, description: 'document_process: { chunks }' }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Job = Static<typeof Job>;
