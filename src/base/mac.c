// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tap's Ethernet address: the stable default MAC that keeps a
 * restarted gsotun's tap in bridges' and peers' tables.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "base/mac.h"
#include "base/siphash.h"

/*
 * The key of the stable MACs: any fixed value will do, as long as it never
 * changes (a new key moves every tap). systemd-networkd likewise keys its
 * hash per purpose, so that its MACs say nothing of the machine id.
 */
static const uint8_t mac_key[16] = {
	0x67, 0x73, 0x6f, 0x74, 0x75, 0x6e, 0x2d, 0x6d,	/* "gsotun-m" */
	0x61, 0x63, 0x2d, 0x76, 0x31, 0x00, 0x00, 0x00,	/* "ac-v1" */
};

#define MAC_U_L 0x02	/* locally administered (IEEE 802 U/L bit) */
#define MAC_I_G 0x01	/* group (multicast) address (I/G bit) */

/* Append a length-prefixed field to buf at *off; false if it is full. */
static bool mac_put(uint8_t *buf, size_t size, size_t *off, const void *p,
		    size_t len)
{
	if (len > 255 || *off + 1 + len > size)
		return false;
	buf[(*off)++] = (uint8_t)len;
	memcpy(buf + *off, p, len);
	*off += len;
	return true;
}

void mac_stable(const char *host, const char *ifname,
		const struct ipaddr *local, uint8_t mac[MAC_LEN])
{
	uint8_t buf[3 * 256], fam = 0;
	size_t off = 0, alen = 0;
	uint64_t h;
	int i;

	if (local && local->family) {
		fam = local->family == AF_INET6 ? 6 : 4;
		alen = fam == 6 ? 16 : 4;
	}
	/* Length-prefixed fields: ("ab", "c") never hashes as ("a", "bc"). */
	mac_put(buf, sizeof(buf), &off, host, strnlen(host, 255));
	mac_put(buf, sizeof(buf), &off, ifname, strnlen(ifname, 255));
	buf[off++] = fam;
	if (alen)
		mac_put(buf, sizeof(buf), &off, &local->addr, alen);
	h = siphash24(siphash_le64(mac_key), siphash_le64(mac_key + 8), buf,
		      off);
	for (i = 0; i < MAC_LEN; i++)
		mac[i] = (uint8_t)(h >> (8 * i));
	mac[0] = (mac[0] | MAC_U_L) & ~MAC_I_G;
}

const char *mac_ntoa(const uint8_t mac[MAC_LEN], char *buf)
{
	snprintf(buf, MAC_TEXT_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0],
		 mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}
