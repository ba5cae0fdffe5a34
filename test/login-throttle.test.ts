// Sign-in throttling slows only the address that fails (issue 26, item 9): wrong passwords from one
// address never refuse the account's owner signing in from another, and the failing address itself
// stays throttled. An IPv6 client is counted by its /64. Client addresses come from X-Forwarded-For
// through a trusted proxy (TRUST_PROXY).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { AccountService } from '../src/accounts/accounts.js';
import { throttledAddress } from '../src/lib/client-address.js';
import { useServer } from './helpers/harness.js';

const PASSWORD = 'correct horse battery staple';
const email = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

describe('login throttling per client address', () => {
  // The default budget, 10 attempts a minute; its own embedded database in the wire run.
  const server = useServer({ DATABASE_URL: '', TRUST_PROXY: '127.0.0.1' });
  const login = (from: string, address: string, password: string) =>
    server.request('POST', '/v1/auth/login', { body: { email: address, password }, headers: { 'x-forwarded-for': from } });

  test('ten wrong passwords from one address do not lock the owner out from another; the guesser stays throttled', async () => {
    const account = await new AccountService({ db: server.database.db }).signUp(email('owner'), PASSWORD);
    for (let i = 0; i < 10; i++) assert.equal((await login('203.0.113.10', account.email, `guess ${i}`)).status, 401);
    assert.equal((await login('203.0.113.10', account.email, `guess 10`)).status, 429);
    const owner = await login('198.51.100.20', account.email, PASSWORD);
    assert.equal(owner.status, 200, owner.text);
    // The guesser is refused even with the right password until its minute is over.
    const guesser = await login('203.0.113.10', account.email, PASSWORD);
    assert.equal(guesser.status, 429, guesser.text);
    assert.ok(Number(guesser.headers.get('retry-after')) > 0);
  });

  test('an IPv6 client is counted by its /64: another address in it is throttled, another network is not', async () => {
    const account = await new AccountService({ db: server.database.db }).signUp(email('v6'), PASSWORD);
    for (let i = 0; i < 10; i++) assert.equal((await login(`2001:db8:1:2::${i + 1}`, account.email, 'guess')).status, 401);
    assert.equal((await login('2001:db8:1:2:ffff::1', account.email, PASSWORD)).status, 429);
    assert.equal((await login('2001:db8:1:3::1', account.email, PASSWORD)).status, 200);
  });
});

test('throttledAddress: IPv4 as is (also mapped), IPv6 as its /64', () => {
  assert.equal(throttledAddress('203.0.113.7'), '203.0.113.7');
  assert.equal(throttledAddress('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(throttledAddress('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(throttledAddress('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(throttledAddress('not an address'), 'not an address');
});
