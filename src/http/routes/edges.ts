// /v1/boards/{boardId}/edges (being written).
import type { App, Services } from '../types.js';

export function edgeRoutes(_app: App, _services: Services): void {}
