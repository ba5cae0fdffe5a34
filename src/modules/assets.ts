// Assets: upload and file routes, and the hourly sweep of files a crash left behind (no asset row,
// older than a few minutes).
import { assetRoutes } from '../http/routes/assets.js';
import type { AppModule } from './app-module.js';

const HOUR_MS = 60 * 60 * 1000;

export const assetsModule: AppModule = {
  routes: assetRoutes,
  background: ({ background, assets }) => background.every('asset sweep', HOUR_MS, () => assets.sweep()),
};
