// The history panel's calls to the API (board versions: list, read, name, restore), through the
// typed client as the rest of the board page's calls (board-api.ts).
import type { paths } from '@board-workspace/client';
import { api } from '../api';
import { unwrap } from './board-api';

export type BoardVersion = paths['/v1/boards/{boardId}/history']['get']['responses'][200]['content']['application/json']['data'][number];
export type BoardVersionContent =
  paths['/v1/boards/{boardId}/history/{versionId}']['get']['responses'][200]['content']['application/json']['data'];
export type RestoreResult =
  paths['/v1/boards/{boardId}/history/{versionId}/restore']['post']['responses'][200]['content']['application/json']['data'];

/** The newest versions first (one page: the panel shows the latest hundred). */
export async function listVersions(boardId: string): Promise<BoardVersion[]> {
  const page = await unwrap(
    api.GET('/v1/boards/{boardId}/history', { params: { path: { boardId }, query: { limit: 100 } } }),
    'Could not load the history',
  );
  return page.data;
}

export async function getVersion(boardId: string, versionId: string): Promise<BoardVersionContent> {
  return (
    await unwrap(
      api.GET('/v1/boards/{boardId}/history/{versionId}', { params: { path: { boardId, versionId } } }),
      'Could not load the version',
    )
  ).data;
}

export async function nameVersion(boardId: string, name: string): Promise<BoardVersion> {
  return (
    await unwrap(api.POST('/v1/boards/{boardId}/history', { params: { path: { boardId } }, body: { name } }), 'Could not keep the version')
  ).data;
}

/** Restores the whole version, or only `nodeIds`. */
export async function restoreVersion(boardId: string, versionId: string, nodeIds?: string[]): Promise<RestoreResult> {
  return (
    await unwrap(
      api.POST('/v1/boards/{boardId}/history/{versionId}/restore', {
        params: { path: { boardId, versionId } },
        body: nodeIds ? { node_ids: nodeIds } : {},
      }),
      'Could not restore the version',
    )
  ).data;
}
