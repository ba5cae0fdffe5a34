// /v1/jobs/{id}: a background job, polled by its creator until completed or failed.
import { Type } from '@sinclair/typebox';
import { getJob } from '../../jobs/job-service.js';
import { principalOf } from '../plugins/auth.js';
import { Timestamp, Uuid } from '../../contract/common.js';
import { errorResponses, IdParams, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export const Job = Type.Object({
  id: Uuid,
  type: Type.String({ description: 'document_process' }),
  status: Type.Union([Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
  result: Type.Union([Type.Object({}, { additionalProperties: true, description: 'document_process: { chunks }' }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function jobRoutes(app: App, { db }: Services): void {
  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Get a job (only your own)',
        params: IdParams,
        response: { 200: Single('job', Job), ...errorResponses },
      },
    },
    async (request) => ({ object: 'job' as const, data: await getJob(db, principalOf(request), request.params.id) }),
  );
}
