// Builds the web app into web/dist, which the service serves at `/`. In development
// (`npm run dev -w web`) Vite proxies the API to a service running on :8080. A service worker
// (vite-plugin-pwa, Workbox's generateSW) keeps the app shell (every built file) so the app opens
// while the service is down: the board as last seen and the person's waiting edits come from
// IndexedDB (src/board/canvas/sync/). The API itself is never cached by it.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  plugins: [
    react(),
    VitePWA({
      registerType: 'autoUpdate',
      // A script file of its own (the Content-Security-Policy allows no inline script).
      injectRegister: 'script',
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{js,mjs,css,html,svg,png,ico,woff,woff2}'],
        // The PDF viewer's chunks are large; all of the shell is kept.
        maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
        navigateFallback: '/index.html',
        // Only the app's own pages: the API, its reference and the health check go to the service.
        navigateFallbackDenylist: [/^\/v1\//, /^\/docs/, /^\/healthz/],
        cleanupOutdatedCaches: true,
        // A new version takes over at once, and the first visit's page is kept by it too.
        skipWaiting: true,
        clientsClaim: true,
      },
    }),
  ],
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
