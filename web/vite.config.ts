// Builds the web app into web/dist, which the service serves at `/`. In development
// (`npm run dev -w web`) Vite proxies the API to a service running on :8080.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  // The client's sources, so the app never depends on a stale client/dist; the contract's limits
  // (one file that imports nothing), so the app checks what the service checks.
  resolve: {
    alias: {
      '@board-workspace/client': fileURLToPath(new URL('../client/src/index.ts', import.meta.url)),
      '@board-workspace/limits': fileURLToPath(new URL('../src/contract/limits.ts', import.meta.url)),
    },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
