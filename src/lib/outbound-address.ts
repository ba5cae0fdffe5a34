// Where a webhook may send: the rules for its endpoint URL, checked when it is created, and the
// addresses its host resolves to, checked again before every attempt. The service must not become
// a way into the network it runs in, so an endpoint reaches only global unicast addresses: private,
// loopback, link-local, unique-local, multicast, unspecified, reserved, and IPv6 forms that embed
// an IPv4 address (mapped, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry
// (isPublicAddress), on ipaddr.js's classification. The sender
// connects to the very addresses checked here (no second lookup a DNS answer could change between
// the check and the connection) and follows no redirects. Hosts named in OUTBOUND_ALLOWED_HOSTS
// (alias WEBHOOK_ALLOWED_HOSTS) are exempt and may use http: a receiver beside the service, or the
// tests' one on loopback. The service's page reader (src/documents/reading/fetch-page.ts) goes by the same
// rules, checked again at every redirect it follows.
import dns from 'node:dns/promises';
import http, { type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalid } from '../errors.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A refusal to send to an endpoint: the delivery's error, retried like any failure. */
export class EndpointRefused extends Error {}

/** The URL's host as compared with OUTBOUND_ALLOWED_HOSTS: lower-case, an IPv6 address without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

const v6 = (prefix: string, bits: number): [ipaddr.IPv6, number] => [ipaddr.IPv6.parse(prefix), bits];
/** Global unicast (RFC 4291): every IPv6 address the public internet routes is in it. */
const GLOBAL_UNICAST = v6('2000::', 3);
/** IETF protocol assignments (RFC 2928): not global unless listed apart; only Teredo, within it, is judged. */
const PROTOCOL_ASSIGNMENTS = v6('2001::', 23);
const TEREDO = v6('2001::', 32);
/** The forms that carry an IPv4 address in their last 32 bits. */
const IPV4_IN_LAST_32 = [v6('::ffff:0:0', 96), v6('::ffff:0:0:0', 96), v6('64:ff9b::', 96)];
const SIX_TO_FOUR = v6('2002::', 16);

const ipv4At = (bytes: number[], at: number, mask = 0): ipaddr.IPv4 => new ipaddr.IPv4(bytes.slice(at, at + 4).map((byte) => byte ^ mask));

/** An IPv4 address the public internet routes: ipaddr.js's `unicast`, in none of its special ranges. */
const isPublicIpv4 = (address: ipaddr.IPv4): boolean => address.range() === 'unicast';

/**
 * The IPv4 addresses an IPv6 address leads to, judged in its stead: IPv4-mapped and -translated,
 * NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server, and its client, stored
 * inverted). Undefined for an address that carries none.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  if (IPV4_IN_LAST_32.some((range) => address.match(range))) return [ipv4At(bytes, 12)];
  if (address.match(SIX_TO_FOUR)) return [ipv4At(bytes, 2)];
  if (address.match(TEREDO)) return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
  return undefined;
}

/**
 * Only addresses reachable on the public internet, by an allow-list: IPv4 unicast outside every
 * special range; an IPv6 address that carries an IPv4 address judged by that address (all of them,
 * for Teredo); any other IPv6 address only within global unicast (2000::/3), outside the protocol
 * assignments (2001::/23) and ipaddr.js's special ranges (documentation, benchmarking, ORCHID…).
 * IPv4-compatible addresses (::/96, deprecated and routed nowhere), local-use NAT64 (64:ff9b:1::/48)
 * and addresses with a zone are refused whatever they hold.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicIpv4(ipaddr.IPv4.parse(address));
  if (family !== 6 || address.includes('%')) return false;
  // Read from the URL standard's hexadecimal form: ipaddr.js reads `::1.2.3.4` as ::ffff:1.2.3.4,
  // where a connection goes to the IPv4-compatible ::102:304.
  const ipv6 = ipaddr.IPv6.parse(new URL(`https://[${address}]`).hostname.slice(1, -1));
  const embedded = embeddedIpv4(ipv6);
  if (embedded) return embedded.every(isPublicIpv4);
  return ipv6.match(GLOBAL_UNICAST) && !ipv6.match(PROTOCOL_ASSIGNMENTS) && ipv6.range() === 'unicast';
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
  if (url.protocol !== 'https:') throw new EndpointRefused(`Refused: ${host} is not in OUTBOUND_ALLOWED_HOSTS, so the url must use https`);
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

/** A connection's lookup that answers with the checked addresses, whatever form the caller asks in. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, all: ResolvedAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/** Makes a request to the address checked by `outboundTarget`. */
export type OutboundRequest = (options: {
  method: 'GET' | 'POST';
  headers: OutgoingHttpHeaders;
  signal: AbortSignal;
}) => http.ClientRequest;

/**
 * Checks `url` by these rules (resolveEndpoint: an EndpointRefused when it is not allowed), then
 * gives what makes requests to it: each connects to the very addresses checked, on a connection of
 * its own (a pooled one may have been made to other addresses), and follows no redirect. Made in
 * the caller's turn, so its error listener can be on before an error is emitted.
 */
export async function outboundTarget(url: URL, allowedHosts: readonly string[]): Promise<OutboundRequest> {
  const addresses = await resolveEndpoint(url, allowedHosts);
  const client = url.protocol === 'https:' ? https : http;
  return (options) => client.request(url, { ...options, agent: false, ...(addresses ? { lookup: pinnedLookup(addresses) } : {}) });
}
