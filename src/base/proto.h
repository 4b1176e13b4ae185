/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Protocol constants more than one module needs: the TCP flags, where the
 * TCP and UDP check fields sit, the IPv4 fragment bits. Ethertypes and
 * header lengths come from <linux/if_ether.h>, protocol numbers from
 * <netinet/in.h>.
 */
#ifndef GSOTUN_PROTO_H
#define GSOTUN_PROTO_H

/* RFC 9293 section 3.1, with ECE and CWR of RFC 3168 section 6.1. */
#define TCP_F_FIN 0x01
#define TCP_F_SYN 0x02
#define TCP_F_RST 0x04
#define TCP_F_PSH 0x08
#define TCP_F_ACK 0x10
#define TCP_F_URG 0x20
#define TCP_F_ECE 0x40
#define TCP_F_CWR 0x80

/* Byte offsets in the TCP header (struct tcphdr). */
#define TCP_FLAGS_OFF 13
#define TCP_CHECK_OFF 16
/* And in the UDP header (struct udphdr). */
#define UDP_LEN_OFF 4
#define UDP_CHECK_OFF 6

/* IPv4 frag_off (RFC 791 section 3.1): flags and the fragment offset. */
#define IP4_F_RESERVED 0x8000
#define IP4_F_DF 0x4000
#define IP4_F_MF 0x2000
#define IP4_OFFSET 0x1fff

#endif
