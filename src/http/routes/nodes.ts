// /v1/boards/{boardId}/nodes (being written).
import type { App, Services } from '../types.js';

export function nodeRoutes(_app: App, _services: Services): void {}
