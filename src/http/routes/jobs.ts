// /v1/jobs/{id}: a background job, polled by its creator until completed or failed.
import { principalOf } from '../plugins/auth.js';
import { Job } from '../../contract/jobs.js';
import { errorResponses, IdParams, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function jobRoutes(app: App, { jobQueue }: Services): void {
  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        operationId: 'getJob',
        summary: 'Get a job (only your own)',
        params: IdParams,
        response: { 200: Single('job', Job), ...errorResponses },
      },
    },
    async (request) => ({ object: 'job' as const, data: await jobQueue.get(principalOf(request), request.params.id) }),
  );
}
