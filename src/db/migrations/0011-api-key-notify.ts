// Tells every instance on the same PostgreSQL when an API key stops being what it was (revoked,
// deleted, scopes, expiry or owner changed), so that instances may cache verified keys
// (src/auth/key-revocations.ts). A trigger rather than a call in the service, so that every path
// (the API, the CLI, an operator's SQL) notifies, in the same transaction as the change: listeners
// hear of it only once it is committed. Updates of last_used_at alone stay silent.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('bwk_api_key_changed', OLD.id::text);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((OLD.revoked_at, OLD.scopes, OLD.expires_at, OLD.user_id, OLD.key_hash)
          IS DISTINCT FROM (NEW.revoked_at, NEW.scopes, NEW.expires_at, NEW.user_id, NEW.key_hash))
    EXECUTE FUNCTION api_key_changed()`.execute(db);
  await sql`CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_key_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER api_keys_deleted ON api_keys`.execute(db);
  await sql`DROP TRIGGER api_keys_changed ON api_keys`.execute(db);
  await sql`DROP FUNCTION api_key_changed()`.execute(db);
}
