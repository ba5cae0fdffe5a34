// The client address that sign-in attempts are counted against. An IPv4 address counts on its own
// (an IPv4-mapped IPv6 address as the IPv4 address it maps); an IPv6 address counts as its /64, the
// smallest network a subscriber is usually given, so one client cannot spread its attempts over the
// 2^64 addresses it holds.
import ipaddr from 'ipaddr.js';

export function throttledAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
