// Every domain of the app, in the order its routes are registered (the OpenAPI document lists
// paths in this order). A new feature adds its module here.
import { apiKeyRoutes } from '../http/routes/api-keys.js';
import { boardRoutes } from '../http/routes/boards.js';
import { chatRoutes } from '../http/routes/chats.js';
import { crossBoardSearchRoutes } from '../http/routes/documents-search.js';
import { edgeRoutes } from '../http/routes/edges.js';
import { jobRoutes } from '../http/routes/jobs.js';
import { meRoutes } from '../http/routes/me.js';
import { metaRoutes } from '../http/routes/meta.js';
import { nodeRoutes } from '../http/routes/nodes.js';
import { accountsModule } from './accounts.js';
import type { AppModule } from './app-module.js';
import { assetsModule } from './assets.js';
import { documentsModule } from './documents.js';
import { eventsModule } from './events.js';
import { interchangeRoutes } from '../http/routes/interchange.js';
import { mcpModule } from './mcp.js';
import { batchRoutes } from '../http/routes/batch.js';
import { memberRoutes } from '../http/routes/members.js';
import { webhooksModule } from './webhooks.js';
import { historyModule } from './history.js';
import { commentRoutes } from '../http/routes/comments.js';

export const appModules: AppModule[] = [
  { routes: metaRoutes },
  { routes: boardRoutes },
  { routes: interchangeRoutes },
  { routes: nodeRoutes },
  { routes: edgeRoutes },
  { routes: batchRoutes },
  historyModule,
  { routes: memberRoutes },
  { routes: commentRoutes },
  eventsModule,
  { routes: apiKeyRoutes },
  webhooksModule,
  documentsModule,
  { routes: crossBoardSearchRoutes },
  { routes: jobRoutes },
  assetsModule,
  { routes: chatRoutes },
  { routes: meRoutes },
  accountsModule,
  mcpModule,
];
