// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sendq: the transmit side's last pure step, segments into the messages
 * (UDP GSO runs) that the underlay submits.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include "base/compat.h"
#include "pipe/sendq.h"

static size_t sendq_wire_len(const struct seg *s, size_t encap_len)
{
	return encap_len + seg_len(s);
}

static void sendq_iov(const struct seg *s, size_t encap_len,
		      struct iovec *iov)
{
	iov[0].iov_base = s->hdr - encap_len;
	iov[0].iov_len = encap_len + s->hdr_len;
	iov[1].iov_base = (void *)s->payload;
	iov[1].iov_len = s->payload_len;
}

static size_t sendq_cmsg_put(struct msghdr *msg, size_t used, int level,
			     int type, const void *data, size_t len)
{
	struct cmsghdr *cm = (struct cmsghdr *)((char *)msg->msg_control +
						 used);

	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
	return used + CMSG_SPACE(len);
}

/* UDP_SEGMENT when gso_size, the outer TOS when tos >= 0. */
static void sendq_cmsgs(const struct sendq_params *p, struct msghdr *msg,
			union sendq_cmsg *cbuf, uint16_t gso_size, int tos)
{
	size_t used = 0;

	msg->msg_control = cbuf->buf;
	if (gso_size)
		used = sendq_cmsg_put(msg, used, SOL_UDP, UDP_SEGMENT,
				      &gso_size, sizeof(gso_size));
	if (tos >= 0 && p->family == AF_INET6)
		used = sendq_cmsg_put(msg, used, IPPROTO_IPV6, IPV6_TCLASS,
				      &tos, sizeof(tos));
	else if (tos >= 0)
		used = sendq_cmsg_put(msg, used, IPPROTO_IP, IP_TOS, &tos,
				      sizeof(tos));
	msg->msg_controllen = used;
	if (!used)
		msg->msg_control = NULL;
}

static void sendq_dst_set(const struct sendq_dst *to, struct msghdr *msg)
{
	msg->msg_name = to ? (void *)to->addr : NULL;
	msg->msg_namelen = to ? to->len : 0;
}

/* A message of one segment, which later ones may join (sendq_extend()). */
static void sendq_new_msg(struct sendq *q, const struct sendq_params *p,
			  const struct sendq_dst *to, unsigned int src,
			  const struct seg *s, size_t encap_len, int tos,
			  bool df)
{
	struct sendq_msg *m = &q->msgs[q->n_msgs++];
	struct iovec *iov = &q->iov[2 * q->n_segs++];

	memset(&m->msg, 0, sizeof(m->msg));
	sendq_iov(s, encap_len, iov);
	m->msg.msg_iov = iov;
	m->msg.msg_iovlen = 2;
	sendq_dst_set(to, &m->msg);
	sendq_cmsgs(p, &m->msg, &m->cmsg, 0, tos);
	m->segs = 1;
	m->size = (uint32_t)sendq_wire_len(s, encap_len);
	m->bytes = m->size;
	m->closed = false;
	m->tos = (int16_t)tos;
	m->df = df && p->df_sock;
	m->src = (uint8_t)src;
}

/*
 * Add s to the last message as one more UDP GSO segment, if it can be:
 * udp_send_skb() cuts a send into segments of the first one's size, the
 * last possibly shorter, at most 128 and (over veth) about 64000 bytes.
 * The segments need not be of one frame: small frames of a batch, ACKs
 * or 64-byte datagrams, leave in one send as well.
 */
static bool sendq_extend(struct sendq *q, const struct sendq_params *p,
			 const struct sendq_dst *to, unsigned int src,
			 const struct seg *s, size_t encap_len, int tos,
			 bool df)
{
	size_t len = sendq_wire_len(s, encap_len);
	struct sendq_msg *m;

	if (!p->gso || !q->n_msgs || q->n_msgs - 1 < q->submitted)
		return false;
	m = &q->msgs[q->n_msgs - 1];
	if (m->msg.msg_name != (to ? (const void *)to->addr : NULL))
		return false;
	if (m->closed || m->src != src || m->tos != tos ||
	    m->df != (df && p->df_sock) || len > m->size ||
	    m->segs >= UDP_GSO_MAX_SEGS || m->bytes + len > UDP_GSO_MAX_BYTES)
		return false;
	/* The message's iovecs are the last ones: this pair follows them. */
	sendq_iov(s, encap_len, &q->iov[2 * q->n_segs++]);
	m->msg.msg_iovlen += 2;
	/* Within UDP_GSO_MAX_BYTES, size fits UDP_SEGMENT's u16. */
	if (++m->segs == 2)
		sendq_cmsgs(p, &m->msg, &m->cmsg, (uint16_t)m->size, tos);
	m->bytes += len;
	m->closed = len < m->size;
	return true;
}

void sendq_reset(struct sendq *q)
{
	q->n_msgs = 0;
	q->n_segs = 0;
	q->submitted = 0;
}

unsigned int sendq_pending(const struct sendq *q)
{
	return q->n_msgs - q->submitted;
}

int sendq_add(struct sendq *q, const struct sendq_params *p,
	      const struct sendq_dst *to, unsigned int src,
	      const struct seg *segs, int n, size_t encap_len, int tos,
	      bool df)
{
	int i;

	if (q->n_segs + n > SENDQ_SEGS)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		if (!sendq_extend(q, p, to, src, &segs[i], encap_len, tos,
				  df))
			sendq_new_msg(q, p, to, src, &segs[i], encap_len, tos,
				      df);
	return 0;
}

void sendq_single(const struct sendq *q, const struct sendq_params *p,
		  unsigned int m, unsigned int i, struct msghdr *out,
		  union sendq_cmsg *cbuf)
{
	const struct sendq_msg *g = &q->msgs[m];

	memset(out, 0, sizeof(*out));
	out->msg_iov = &g->msg.msg_iov[2 * i];
	out->msg_iovlen = 2;
	out->msg_name = g->msg.msg_name;
	out->msg_namelen = g->msg.msg_namelen;
	sendq_cmsgs(p, out, cbuf, 0, g->tos);
}
