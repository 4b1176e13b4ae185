// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for what ICMP errors from the underlay do: an error
 * queue entry through pmtu_serr_mtu() and pmtu_lower() into a path MTU.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/errqueue.h>
#include "pipe/pmtu.h"
#include "fuzz.h"

/*
 * Input: struct sock_extended_err as the kernel lays it out (16 bytes),
 * then the current path MTU (4 bytes, host order), then a byte whose bit
 * 0 says the underlay is IPv6. The kernel builds the entry from the ICMP
 * packet (ip_icmp_error(), ipv6_icmp_error()); what gsotun trusts of it
 * is origin, type, code, errno and info, all of which any value may take.
 */
#define ICMP_IN_LEN (sizeof(struct sock_extended_err) + 4 + 1)

/* What the entry reports, by the rules written out again. */
static uint32_t icmp_ref(const struct sock_extended_err *e)
{
	if (e->ee_origin == SO_EE_ORIGIN_ICMP && e->ee_type == 3 &&
	    e->ee_code == 4)
		return e->ee_info;
	if (e->ee_origin == SO_EE_ORIGIN_ICMP6 && e->ee_type == 2)
		return e->ee_info;
	if (e->ee_origin == SO_EE_ORIGIN_LOCAL && e->ee_errno == EMSGSIZE)
		return e->ee_info;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sock_extended_err e;
	uint32_t cur, mtu, now, floor;
	bool v6;

	if (size < ICMP_IN_LEN)
		return 0;
	memcpy(&e, data, sizeof(e));
	memcpy(&cur, data + sizeof(e), 4);
	v6 = data[sizeof(e) + 4] & 1;
	floor = v6 ? PMTU_FLOOR6 : PMTU_FLOOR4;

	mtu = pmtu_serr_mtu(&e);
	FUZZ_CHECK(mtu == icmp_ref(&e));
	now = pmtu_lower(cur, mtu, v6);
	/* Never raised; only a report below cur lowers it; not past the
	 * floor unless it already was. */
	FUZZ_CHECK(now <= cur);
	if (!mtu || mtu > cur)
		FUZZ_CHECK(now == cur);
	else
		FUZZ_CHECK(now == (mtu >= floor ? mtu
					       : cur < floor ? cur : floor));
	return 0;
}
