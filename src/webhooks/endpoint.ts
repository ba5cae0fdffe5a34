// Where a webhook may send: the rules for its endpoint URL, checked when it is created, and the
// addresses its host resolves to, checked again before every attempt. The service must not become
// a way into the network it runs in, so an endpoint reaches only global unicast addresses: private,
// loopback, link-local, unique-local, multicast, unspecified, reserved, and IPv6 forms that embed
// an IPv4 address (mapped, NAT64, 6to4, Teredo) are refused, classified by ipaddr.js. The sender
// connects to the very addresses checked here (no second lookup a DNS answer could change between
// the check and the connection) and follows no redirects. Hosts named in WEBHOOK_ALLOWED_HOSTS are
// exempt and may use http: a receiver beside the service, or the tests' one on loopback.
import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../errors.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A refusal to send to an endpoint: the delivery's error, retried like any failure. */
export class EndpointRefused extends Error {}

/** The URL's host as compared with WEBHOOK_ALLOWED_HOSTS: lower-case, an IPv6 address without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

/** Only addresses reachable on the public internet: ipaddr.js's `unicast`, what none of its special ranges holds. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/**
 * Checks an endpoint URL as given to POST /v1/webhooks and returns it normalised. An address in the
 * URL itself is checked here; a host name is checked when it is resolved, before each attempt.
 */
export function checkEndpointUrl(raw: string, allowedHosts: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('url must be an absolute https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('url must be an absolute https URL');
  if (url.username !== '' || url.password !== '')
    throw invalid('url must not carry credentials; the signature authenticates each delivery');
  const host = hostOf(url);
  if (host === '') throw invalid('url must name a host');
  const allowed = allowedHosts.includes(host);
  if (url.protocol === 'http:' && !allowed) throw invalid('url must use https (http only for hosts in WEBHOOK_ALLOWED_HOSTS)');
  if (!allowed && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw invalid('url names a private, loopback, link-local or otherwise non-public address');
  }
  url.hash = '';
  return url.toString();
}

/**
 * The addresses to connect to for an endpoint, every one of them public, or an EndpointRefused
 * saying why not. Undefined for an allowed host: the connection looks it up as usual.
 */
export async function resolveEndpoint(url: URL, allowedHosts: readonly string[]): Promise<ResolvedAddress[] | undefined> {
  const host = hostOf(url);
  if (allowedHosts.includes(host)) return undefined;
  if (url.protocol !== 'https:') throw new EndpointRefused(`Refused: ${host} is not in WEBHOOK_ALLOWED_HOSTS, so the url must use https`);
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family !== 0) {
    addresses = [{ address: host, family: family as 4 | 6 }];
  } else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })) as ResolvedAddress[];
    } catch (error) {
      throw new EndpointRefused(`Could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (addresses.length === 0) throw new EndpointRefused(`Could not resolve ${host}: no addresses`);
  }
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused) {
    throw new EndpointRefused(
      `Refused: ${host} resolves to ${refused.address}, a private, loopback, link-local or otherwise non-public address`,
    );
  }
  return addresses;
}
