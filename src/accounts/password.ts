// Password hashing with Node's built-in scrypt: a random 16-byte salt per password, the cost
// parameters stored with the hash (PHC-style `$scrypt$ln=15,r=8,p=1$<salt>$<hash>`) so they can be
// raised later (a login with older parameters rehashes) and a hash made at one cost verifies at any
// setting, and a constant-time comparison. The cost N is AUTH_SCRYPT_COST (src/config.ts): 2^15 in
// production, lower in the test suite, whose servers sign up hundreds of accounts.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface Params {
  /** log2 of the CPU/memory cost N */
  ln: number;
  r: number;
  p: number;
}

/**
 * One of OWASP's equivalent scrypt minimums (N=2^15, r=8, p=3): 32 MiB of memory per hash rather
 * than the 128 MiB of N=2^17 p=1, so concurrent logins stay light on memory.
 */
export const CURRENT_PARAMS: Params = { ln: 15, r: 8, p: 3 };

/** The parameters of new hashes at a cost of 2^`ln` (AUTH_SCRYPT_COST): r and p stay OWASP's. */
export const scryptParams = (ln: number): Params => ({ ...CURRENT_PARAMS, ln });
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function scrypt(password: string, salt: Buffer, params: Params): Promise<Buffer> {
  const N = 2 ** params.ln;
  // Node refuses parameters needing more than maxmem (32 MiB by default, just under our need).
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(normalise(password), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The same characters typed on different systems (composed or decomposed accents) give one password. */
const normalise = (password: string): string => password.normalize('NFKC');

const b64 = (buffer: Buffer): string => buffer.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string, params: Params = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, params);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

export interface Verification {
  ok: boolean;
  /** Stored with weaker parameters than today's: store a new hash after a successful login. */
  needsRehash: boolean;
}

/** Verifies `stored` with the parameters it carries; `current` are those new hashes are made with. */
export async function verifyPassword(password: string, stored: string, current: Params = CURRENT_PARAMS): Promise<Verification> {
  const match = FORMAT.exec(stored);
  if (!match) return { ok: false, needsRehash: false };
  const params: Params = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (params.ln < 1 || params.ln > 22 || params.r < 1 || params.p < 1) return { ok: false, needsRehash: false };
  const expected = Buffer.from(match[5]!, 'base64');
  const actual = await scrypt(password, Buffer.from(match[4]!, 'base64'), params);
  const ok = expected.length === actual.length && timingSafeEqual(expected, actual);
  const needsRehash = params.ln < current.ln || params.r < current.r || params.p < current.p;
  return { ok, needsRehash };
}

/**
 * A hash of a random password, to verify against when there is no account: a login's duration then
 * does not tell whether the email exists. One per app (its sign-in, sign-in.ts), made at start.
 */
export class DummyHash {
  private readonly hash: Promise<string>;

  /** `params`: those of the app's new hashes, so a verification against it costs what a real one does. */
  constructor(private readonly params: Params = CURRENT_PARAMS) {
    // Made ahead of the first login, so that login is not slower than the rest.
    this.hash = hashPassword(randomBytes(16).toString('hex'), params);
  }

  /** Spends the time of one verification. */
  async verifyAgainst(password: string): Promise<void> {
    await verifyPassword(password, await this.hash, this.params);
  }
}
