// Which IP addresses a shared-hosting service must not fetch from. The ranges are ipaddr.js's
// (loopback, private, link-local, unique-local, CGNAT, multicast, reserved, documentation …):
// only an address it calls "unicast" is public. IPv4 addresses carried inside IPv6 ones are
// unwrapped first and judged as IPv4: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
// (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16)
// and Teredo (2001::/32, the client's address).
import ipaddr from 'ipaddr.js';

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

const v4 = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 address an IPv6 one carries, or undefined when it carries none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(p[6]!, p[7]!);
    case 'rfc6052':
      // The local-use prefix 64:ff9b:1::/48 places the address by its own prefix length,
      // unknowable here: nothing is unwrapped, and the range is not unicast (refused).
      return address.match(NAT64_WELL_KNOWN) ? v4(p[6]!, p[7]!) : undefined;
    case '6to4':
      return v4(p[1]!, p[2]!);
    case 'teredo':
      return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
    default:
      // IPv4-compatible (deprecated): the first 96 bits zero, beyond :: and ::1.
      return p.slice(0, 6).every((part) => part === 0) ? v4(p[6]!, p[7]!) : undefined;
  }
}

/** Whether an IP address (v4 or v6 literal, brackets and zone allowed) must be refused. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return true; // not an address at all: refuse rather than guess
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.range() === 'unspecified' || v6.range() === 'loopback') return true;
  const inner = embeddedIPv4(v6);
  if (inner !== undefined) return inner.range() !== 'unicast';
  return v6.range() !== 'unicast';
}
