/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the control messages of a send say, read independently of
 * src/pipe/sendq.c: for tests/unit-sendq.c and tests/fuzz-tx.c.
 */
#ifndef GSOTUN_TESTS_CMSG_H
#define GSOTUN_TESTS_CMSG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "base/compat.h"

/*
 * The control messages of h: UDP_SEGMENT's value in *gso (0: none), the
 * TOS (family AF_INET) or traffic class (AF_INET6) in *tos (-1: none),
 * each at most once. false for anything else, or a control buffer of no
 * length that is not NULL.
 */
static inline bool cmsgs_of(const struct msghdr *h, int family, int *gso,
			    int *tos)
{
	bool v6 = family == AF_INET6;
	int level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
	int type = v6 ? IPV6_TCLASS : IP_TOS;
	struct cmsghdr *c;
	uint16_t v16;
	int v;

	*gso = 0;
	*tos = -1;
	if (!h->msg_controllen)
		return h->msg_control == NULL;
	for (c = CMSG_FIRSTHDR((struct msghdr *)h); c;
	     c = CMSG_NXTHDR((struct msghdr *)h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT &&
		    c->cmsg_len == CMSG_LEN(sizeof(v16)) && !*gso) {
			memcpy(&v16, CMSG_DATA(c), sizeof(v16));
			*gso = v16;
			continue;
		}
		if (c->cmsg_len != CMSG_LEN(sizeof(v)) || *tos >= 0 ||
		    c->cmsg_level != level || c->cmsg_type != type)
			return false;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		*tos = v;
	}
	return true;
}

#endif
