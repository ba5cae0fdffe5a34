// Serves the built web app (WEB_DIST_DIR, by default web/dist) at `/` with @fastify/static: every
// file of the build at its path (hashed /assets/* cached for a year, the rest revalidated), and
// index.html for any other GET that is not the API (/v1…), the reference (/docs…) or /healthz, so
// client-side routes (/boards/<id>, /login, /auth/callback) load the app. Unknown /v1 paths, missing
// assets and other file-like paths stay the JSON 404. The build's files are listed once at start:
// restart after rebuilding (npm start builds first). Without a build, `/` says how to make one.
//
// Security headers: a Content-Security-Policy that allows only this origin (plus the identity
// provider's endpoints in connect-src, which the browser calls for the PKCE token exchange),
// inline styles (React Flow positions nodes with style attributes), data:/blob: images (previews of
// dropped files) and YouTube thumbnails of video nodes, frames of the YouTube (privacy-enhanced)
// and Vimeo players only, no framing of the app itself; nosniff; no Referer (the callback URL carries the authorization code).
//
// The build's `.map` source maps (the app's whole source) are 404 unless WEB_SOURCE_MAPS asks for
// them: the build keeps making them, for whoever debugs or feeds an error tracker.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProvider } from '../../accounts/oidc.js';
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';
import type { App } from '../types.js';
import { sendError } from './errors.js';

/** Paths that never fall back to the app. */
const NOT_THE_APP = /^\/(v1|docs|healthz)(\/|$)/;
/** A last path segment with an extension names a file, not a client-side route. */
const FILE_LIKE = /\.[A-Za-z0-9]{1,8}$/;

/** The only origins the app frames: the video players of video nodes (web/src/board/nodes/web-links.ts). */
export const VIDEO_PLAYERS = ['https://www.youtube-nocookie.com', 'https://player.vimeo.com'];

const origin = (url: string | null | undefined): string[] => {
  if (!url) return [];
  try {
    return [new URL(url).origin];
  } catch {
    return [];
  }
};

function contentSecurityPolicy(config: Config, oidc: OidcProvider | undefined): string {
  const base = origin(config.publicBaseUrl);
  let idp: string[] = [];
  if (oidc) {
    // Never waits for the provider (a page must not hang on it): before discovery has loaded, the
    // issuer's own origin is what is known, and loading is started for the next page.
    const doc = oidc.cached();
    if (!doc) oidc.discovery().catch(() => {});
    idp = [...origin(oidc.config.issuer), ...origin(doc?.token_endpoint), ...origin(doc?.userinfo_endpoint), ...origin(doc?.jwks_uri)];
  }
  const list = (...sources: string[]) => [...new Set(sources)].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    // Link cards show the preview image their page names (any https address, as other whiteboards'
    // bookmark cards do; the referrer is never sent), video cards YouTube's thumbnail. Videos play
    // in the card once clicked, in YouTube's privacy-enhanced player or Vimeo's: no other frame.
    `img-src ${list("'self'", 'data:', 'blob:', ...base, 'https:')}`,
    `frame-src ${VIDEO_PLAYERS.join(' ')}`,
    `connect-src ${list("'self'", ...base, ...idp)}`,
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    `form-action ${list("'self'", ...idp)}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

export async function registerWebApp(app: App, config: Config, oidc: OidcProvider | undefined): Promise<void> {
  const root = config.webDistDir;
  const built = fs.existsSync(path.join(root, 'index.html'));
  const maxParamLength = app.initialConfig.maxParamLength ?? 100;

  await app.register(async (scope) => {
    // The app's files are public (@fastify/static takes no route config, so it is added here).
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), public: true, rateLimit: false } as never;
    });
    if (!config.webSourceMaps) {
      scope.addHook('onRequest', async (request, reply) => {
        // The router's not-found handler would see the file's route and answer 405.
        if ((request.url.split('?')[0] ?? '').endsWith('.map')) return sendError(reply, new ApiError('not_found', 'Route not found'));
      });
    }
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', contentSecurityPolicy(config, oidc));
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('x-frame-options', 'DENY');
      return payload;
    });

    if (built) {
      await scope.register(fastifyStatic, {
        root,
        prefix: '/',
        // One route per file of the build, so every other path reaches the fallback below.
        wildcard: false,
        index: false,
        cacheControl: false,
        serveDotFiles: false,
        setHeaders: (reply: FastifyReply, filePath: string) => {
          const relative = path.relative(root, filePath).split(path.sep).join('/');
          // Vite names these by content hash: they never change under the same name.
          reply.header('cache-control', relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
    }

    const fallback = async (request: FastifyRequest, reply: FastifyReply) => {
      const urlPath = request.url.split('?')[0] ?? '/';
      // A path segment past the router's parameter limit skips the API route it was meant for and
      // lands here; without the wildcard it was the router's 404, so it stays one.
      if (NOT_THE_APP.test(urlPath) && urlPath.split('/').some((segment) => segment.length > maxParamLength)) {
        return sendError(reply, new ApiError('not_found', 'Resource not found'));
      }
      if (NOT_THE_APP.test(urlPath) || urlPath.startsWith('/assets/') || FILE_LIKE.test(urlPath)) return reply.callNotFound();
      if (!built) {
        if (urlPath !== '/') return reply.callNotFound();
        return sendError(
          reply,
          new ApiError(
            'unavailable',
            `The web app is not built (no ${path.join(root, 'index.html')}): run \`npm run build\`, then restart the service`,
          ),
        );
      }
      return reply.sendFile('index.html');
    };
    const options = { config: { public: true, rateLimit: false as const }, schema: { hide: true } };
    scope.get('/', options, fallback);
    scope.get('/*', options, fallback);
  });
}
