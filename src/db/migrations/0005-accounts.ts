// Local accounts (email and password) for the web app's embedded sign-in, their refresh tokens, and
// the service's own token-signing key.
//
// - accounts: one per local user (users.subject is the user id, as for a UUID subject). The email is
//   stored normalised (trimmed, lower-case), so the plain unique constraint is case-insensitive.
// - refresh_tokens: only the SHA-256 of each token. Tokens of one sign-in share a family_id; a token
//   is spent (used_at) when rotated, and presenting a spent token revokes its whole family.
// - service_keys: the private JWK that signs access tokens, inserted once (ON CONFLICT DO NOTHING)
//   so every instance sharing the database signs and verifies with the same key.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE accounts (
      user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      email text NOT NULL UNIQUE,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE refresh_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      family_id uuid NOT NULL,
      token_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id)`.execute(db);
  await sql`CREATE INDEX refresh_tokens_expires_idx ON refresh_tokens (expires_at)`.execute(db);
  await sql`
    CREATE TABLE service_keys (
      name text PRIMARY KEY,
      private_jwk jsonb NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE service_keys`.execute(db);
  await sql`DROP TABLE refresh_tokens`.execute(db);
  await sql`DROP TABLE accounts`.execute(db);
}
