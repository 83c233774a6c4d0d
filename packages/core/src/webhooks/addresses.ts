/**
 * Whether an address is one the public internet routes to: webhook URLs
 * come from callers, and a server must not be made to post to its own
 * network (loopback, private, link-local, and the other special-purpose
 * ranges of the IANA registries).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const SPECIAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  SPECIAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  SPECIAL.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) stands for, else the address itself. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** Whether `address` (an IP literal) is globally routable; `false` for anything that is not an IP address. */
export function isPublicAddress(address: string): boolean {
  const plain = unmapped(address.replace(/^\[|\]$/g, ''));
  const family = isIP(plain);
  if (family === 0) return false;
  return !SPECIAL.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why posting to `url` now would reach a non-public address (the host is
 * one, or resolves to one), or `undefined` when every address it resolves
 * to is public. A host that does not resolve is refused too.
 */
export async function nonPublicReason(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : `${host} is not a public address`;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `${host} does not resolve`;
  }
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  return blocked === undefined ? undefined : `${host} resolves to ${blocked.address}, not a public address`;
}
