// MCP: the Model Context Protocol server at /v1/mcp, through which AI assistants read and change
// boards with the caller's API key or JWT (tools in src/mcp, the HTTP transport in src/http/routes/mcp.ts).
import { mcpRoutes } from '../http/routes/mcp.js';
import type { AppModule } from './app-module.js';

export const mcpModule: AppModule = { routes: mcpRoutes };
