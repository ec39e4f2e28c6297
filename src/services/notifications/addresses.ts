// Where a notification may go: the address ranges a TPP's notification URI may never reach in live
// mode (the gateway's own network, its loopback, link-local cloud metadata), checked on a literal IP at
// subscription and on every address the host resolves to at each delivery.
import { BlockList, isIP } from 'node:net';

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv6');

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address it carries. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped === null ? address : mapped[1]!;
}

/** An address in a private, loopback, link-local, unique-local, multicast or unspecified range. */
export function isRefusedAddress(address: string): boolean {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return true;
  return REFUSED.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/** A loopback address (allowed in the sandbox, where the TPP's receiver runs beside the gateway). */
export function isLoopback(address: string): boolean {
  const plain = unmapped(address);
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

/** A URL's host as an IP literal (IPv6 without its brackets), or undefined for a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}
