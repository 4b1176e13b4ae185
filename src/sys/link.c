// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtnetlink through libmnl: the request socket, each request sent and
 * its acknowledgement read, with the kernel's reason when it failed:
 * linkdev.c, linkroute.c and linkfdb.c ask through it.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include "base/log.h"
#include "sys/link-priv.h"
#include "sys/link.h"

struct link *link_open(void)
{
	struct link *l;
	int one = 1;

	l = calloc(1, sizeof(*l));
	if (!l) {
		log_err_errno("cannot allocate netlink state");
		return NULL;
	}
	l->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!l->nl) {
		log_err_errno("cannot open rtnetlink socket");
		goto err;
	}
	if (mnl_socket_bind(l->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		log_err_errno("cannot bind rtnetlink socket");
		goto err;
	}
	/*
	 * Best effort (Linux 4.12+): errors then carry the kernel's reason
	 * as text, and not a copy of our request.
	 */
	mnl_socket_setsockopt(l->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(l->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	l->portid = mnl_socket_get_portid(l->nl);
	l->seq = (unsigned int)time(NULL);
	return l;
err:
	link_close(l);
	return NULL;
}

void link_close(struct link *l)
{
	if (!l)
		return;
	if (l->nl)
		mnl_socket_close(l->nl);
	free(l);
}

const char *link_ntop(int family, const void *addr, char *buf, socklen_t len)
{
	if (!inet_ntop(family, addr, buf, len))
		snprintf(buf, len, "(family %d)", family);
	return buf;
}

void link_log(int level, int ret, const struct link_reply *r,
	      const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->why[0])
		log_msg(level, 0, "%s: %s (%s)", what, strerror(-ret), r->why);
	else
		log_msg(level, -ret, "%s", what);
}

struct nlmsghdr *link_req(struct link *l, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(l->buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++l->seq;
	return nlh;
}

static int link_ack_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_reply *r = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(r->why, sizeof(r->why), "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* Extended ACK TLVs follow the error, and the request unless capped. */
static void link_ack_reason(const struct nlmsghdr *nlh, struct link_reply *r)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (err->msg.nlmsg_len < sizeof(struct nlmsghdr))
			return;
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	off = NLMSG_ALIGN(off);
	if (off > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, (unsigned int)off, link_ack_attr_cb, r);
}

static int link_ack_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (err->error == 0)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		link_ack_reason(nlh, data);
	errno = err->error < 0 ? -err->error : EPROTO;
	return MNL_CB_ERROR;
}

/* The end of a dump, which says in an int whether it went through. */
static int link_done_cb(const struct nlmsghdr *nlh, void *data)
{
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	errno = -err;
	return MNL_CB_ERROR;
}

static mnl_cb_t link_ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = link_ack_cb,
	[NLMSG_DONE] = link_done_cb,
};

/*
 * Whatever an earlier exchange left unread, thrown away: libmnl gives up
 * on a dump at its first message marked NLM_F_DUMP_INTR (EINTR), and the
 * rest of that dump would be read as the next request's replies (EPROTO:
 * not its sequence number), failing it too. The kernel makes a dump's
 * next part as the last is read, so this reads until nothing comes.
 */
static void link_drain(struct link *l)
{
	char junk[64];

	while (recv(mnl_socket_get_fd(l->nl), junk, sizeof(junk),
		    MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
}

/*
 * Send the request in l->buf and read until its ACK (a dump: its end);
 * replies before it go to cb. Returns 0 or -errno (the netlink error's,
 * if one came; -EINTR: a dump the kernel says changed while it was
 * made, which the caller may ask again).
 */
int link_talk(struct link *l, mnl_cb_t cb, struct link_reply *r)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)l->buf;
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t n;
	int ret;

	link_drain(l);
	if (mnl_socket_sendto(l->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(l->nl, l->buf, sizeof(l->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(l->buf, (size_t)n, seq, l->portid, cb, r,
				  link_ctl_cb, MNL_ARRAY_SIZE(link_ctl_cb));
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? -errno : 0;
	}
}
