// Accounts: the sign-in routes (local accounts or an OpenID Connect provider) and, for local
// accounts, the hourly sweep of expired refresh tokens.
import { authRoutes } from '../http/routes/auth.js';
import type { AppModule } from './app-module.js';

const HOUR_MS = 60 * 60 * 1000;

export const accountsModule: AppModule = {
  routes: (app, services) => authRoutes(app, services, services.signIn),
  background: ({ background, signIn }) => {
    if (signIn.mode === 'local') background.every('refresh-token sweep', HOUR_MS, () => signIn.sessions.sweep());
  },
};
