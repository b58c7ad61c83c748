import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses a server-side fetch must never connect to unless the operator allows private networks:
 * loopback, private, link-local, shared (CGNAT), multicast, documentation, benchmarking and the other
 * special-use ranges of the IANA registries (RFC 6890 and its updates).
 */
const v4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  v4.addSubnet(network, prefix, 'ipv4');
}

const v6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  v6.addSubnet(network, prefix, 'ipv6');
}

const MAPPED_V4 = /^::ffff:(?:0:)?(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_V4_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The IPv4 address an IPv4-mapped (or -translated) IPv6 address carries, if it is one. */
function embeddedIPv4(address: string): string | undefined {
  const dotted = MAPPED_V4.exec(address);
  if (dotted) return dotted[1];
  const hex = MAPPED_V4_HEX.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** True when `address` (an IP literal) is special-use; anything that is not an IP counts as refused. */
export function isSpecialUseAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return v4.check(bare, 'ipv4');
  if (!isIPv6(bare)) return true;
  const mapped = embeddedIPv4(bare);
  if (mapped !== undefined) return !isIPv4(mapped) || v4.check(mapped, 'ipv4');
  return v6.check(bare, 'ipv6');
}
