// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for what gsotun reads of the host's routes before it
 * routes a --route prefix into its tun (fwd.c): a dump of the main
 * table through link_route_scan(), as link_route_find() reads it, which
 * says whether a route to the prefix is the host's (refused) or ours.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include "sys/link.h"
#include "fuzz.h"

/*
 * Input: the prefix looked for (a byte: bit 0 the family, IPv6 when set;
 * a byte: its length; 16 bytes of address), the tun's ifindex (4 bytes,
 * host order), then the bytes recvfrom() gave: any messages at all.
 */
#define ROUTEF_HDR_LEN (2 + 16 + 4)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cidr p = { 0 };
	unsigned int ifindex;
	uint32_t *buf;
	size_t len;
	int ret;

	if (size < ROUTEF_HDR_LEN)
		return 0;
	p.family = data[0] & 1 ? AF_INET6 : AF_INET;
	p.prefix = data[1];
	memcpy(&p.addr, data + 2, sizeof(p.addr));
	memcpy(&ifindex, data + 18, 4);
	len = size - ROUTEF_HDR_LEN;
	/* Aligned as the socket's buffer is; exactly len bytes for ASan. */
	buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + ROUTEF_HDR_LEN, len);
	ret = link_route_scan(buf, len, &p, ifindex);
	FUZZ_CHECK(ret == -EEXIST || ret == 0 || ret == 1);
	/* No message: no route. */
	if (len < sizeof(struct nlmsghdr))
		FUZZ_CHECK(ret == 0);
	free(buf);
	return 0;
}
