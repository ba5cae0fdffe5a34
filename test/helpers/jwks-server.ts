// A fake identity provider for tests: an RSA and an EC key pair, their public halves served as a
// JWKS on loopback (node:http), and helpers that sign tokens the way an identity provider would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export type AsymmetricAlg = 'RS256' | 'ES256';

export interface SignOptions {
  sub?: string;
  /** Seconds from now; null leaves `exp` out. Default 600. */
  expiresIn?: number | null;
  issuer?: string;
  audience?: string;
  /** Sign with a key the JWKS does not hold (same kid), for bad-signature tests. */
  foreignKey?: boolean;
  claims?: JWTPayload;
}

export interface JwksServer {
  url: string;
  /** PEM (SPKI) of the RSA public key, the secret of an algorithm-confusion attack. */
  rsaPublicPem: string;
  rsaPublicJwk: JWK;
  sign(alg: AsymmetricAlg, options?: SignOptions): Promise<string>;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

interface KeyMaterial {
  kid: string;
  privateKey: CryptoKey;
  foreignPrivateKey: CryptoKey;
}

export async function startJwksServer(): Promise<JwksServer> {
  const rsa = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const keys: Record<AsymmetricAlg, KeyMaterial> = {
    RS256: { kid: 'rsa-1', privateKey: rsa.privateKey, foreignPrivateKey: (await generateKeyPair('RS256')).privateKey },
    ES256: { kid: 'ec-1', privateKey: ec.privateKey, foreignPrivateKey: (await generateKeyPair('ES256')).privateKey },
  };
  const rsaPublicJwk = { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' };
  const ecPublicJwk = { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' };
  const body = JSON.stringify({ keys: [rsaPublicJwk, ecPublicJwk] });

  let fetches = 0;
  const server = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    rsaPublicPem: await exportSPKI(rsa.publicKey),
    rsaPublicJwk,
    fetches: () => fetches,
    async sign(alg, options = {}) {
      const material = keys[alg];
      const jwt = new SignJWT({ ...(options.claims ?? {}) }).setProtectedHeader({ alg, kid: material.kid, typ: 'JWT' }).setIssuedAt();
      if (options.sub !== undefined) jwt.setSubject(options.sub);
      const expiresIn = options.expiresIn === undefined ? 600 : options.expiresIn;
      if (expiresIn !== null) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn);
      if (options.issuer) jwt.setIssuer(options.issuer);
      if (options.audience) jwt.setAudience(options.audience);
      return jwt.sign(options.foreignKey ? material.foreignPrivateKey : material.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
