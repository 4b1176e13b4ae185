// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the tap's stable MAC: SipHash-2-4 against the reference
 * vectors, and the derivation stable, different for any other input, and
 * a unicast, locally administered address.
 */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>
#include "base/mac.h"
#include "base/siphash.h"
#include "tap.h"

/* The reference implementation's vectors.h: key 00..0f, message 00..len-1. */
static const struct {
	size_t len;
	uint64_t want;
} sip_rows[] = {
	{ 0, 0x726fdb47dd0e0e31ull },
	{ 1, 0x74f839c593dc67fdull },
	{ 8, 0x93f5f5799a932462ull },
	{ 15, 0xa129ca6149be45e5ull },
	{ 63, 0x958a324ceb064572ull },
};

static void test_siphash(void)
{
	uint8_t key[16], msg[64];
	size_t i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (i = 0; i < sizeof(sip_rows) / sizeof(sip_rows[0]); i++)
		ok(siphash24(siphash_le64(key), siphash_le64(key + 8), msg,
			     sip_rows[i].len) == sip_rows[i].want,
		   "siphash24: the reference vector of %zu bytes",
		   sip_rows[i].len);
}

/* The inputs of one derivation. */
struct input {
	const char *name;	/* what differs from the first row */
	const char *host;
	const char *ifname;
	const char *local;	/* NULL: unknown */
};

static const struct input inputs[] = {
	{ "the base", "0123456789abcdef0123456789abcdef", "gsotun0",
	  "198.18.0.1" },
	{ "another machine id", "0123456789abcdef0123456789abcdee",
	  "gsotun0", "198.18.0.1" },
	{ "another tap name", "0123456789abcdef0123456789abcdef", "gsotun1",
	  "198.18.0.1" },
	{ "another local address", "0123456789abcdef0123456789abcdef",
	  "gsotun0", "198.18.0.2" },
	{ "no local address", "0123456789abcdef0123456789abcdef", "gsotun0",
	  NULL },
	{ "an IPv6 local address", "0123456789abcdef0123456789abcdef",
	  "gsotun0", "2001:db8::1" },
	{ "the IPv4 address's bytes as IPv6",
	  "0123456789abcdef0123456789abcdef", "gsotun0", "c612:1::" },
	{ "a byte moved from the host to the name",
	  "0123456789abcdef0123456789abcde", "fgsotun0", "198.18.0.1" },
	{ "a host name (no machine id)", "host", "gsotun0", "198.18.0.1" },
};
#define N_INPUTS (sizeof(inputs) / sizeof(inputs[0]))

static void derive(const struct input *in, uint8_t mac[MAC_LEN])
{
	struct ipaddr a = { 0 };

	if (in->local && inet_pton(AF_INET, in->local, &a.addr) == 1)
		a.family = AF_INET;
	else if (in->local && inet_pton(AF_INET6, in->local, &a.addr) == 1)
		a.family = AF_INET6;
	mac_stable(in->host, in->ifname, in->local ? &a : NULL, mac);
}

static void test_stable(void)
{
	uint8_t macs[N_INPUTS][MAC_LEN], again[MAC_LEN];
	char text[MAC_TEXT_LEN];
	size_t i, j;
	int same;

	for (i = 0; i < N_INPUTS; i++)
		derive(&inputs[i], macs[i]);
	derive(&inputs[0], again);
	ok(!memcmp(again, macs[0], MAC_LEN),
	   "the same inputs give the same MAC (%s)", mac_ntoa(again, text));
	for (i = 1; i < N_INPUTS; i++)
		ok(memcmp(macs[i], macs[0], MAC_LEN) != 0,
		   "%s gives another MAC", inputs[i].name);
	for (i = 0, same = 0; i < N_INPUTS; i++)
		for (j = 0; j < i; j++)
			same += !memcmp(macs[i], macs[j], MAC_LEN);
	is_int(same, 0, "no two of the inputs give one MAC");
	for (i = 0; i < N_INPUTS; i++) {
		ok((macs[i][0] & 0x02) && !(macs[i][0] & 0x01),
		   "%s: locally administered and unicast (%s)",
		   inputs[i].name, mac_ntoa(macs[i], text));
	}
}

/* Over many names, the bits: always set and clear, the others vary. */
static void test_bits(void)
{
	uint8_t mac[MAC_LEN], or[MAC_LEN] = { 0 }, and[MAC_LEN];
	char name[16];
	int i, k, bad = 0;

	memset(and, 0xff, sizeof(and));
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "tap%d", i);
		mac_stable("host", name, NULL, mac);
		if ((mac[0] & 0x03) != 0x02)
			bad++;
		for (k = 0; k < MAC_LEN; k++) {
			or[k] |= mac[k];
			and[k] &= mac[k];
		}
	}
	is_int(bad, 0, "1000 names: every MAC unicast, locally administered");
	ok(or[0] == 0xfe && and[0] == 0x02,
	   "the first byte: U/L always set, I/G never, the others vary");
	for (k = 1, bad = 0; k < MAC_LEN; k++)
		bad += or[k] != 0xff || and[k] != 0;
	is_int(bad, 0, "the other bytes: every bit varies");
}

static void test_ntoa(void)
{
	const uint8_t mac[MAC_LEN] = { 0x02, 0x0a, 0xbc, 0x00, 0xff, 0x10 };
	char text[MAC_TEXT_LEN];

	ok(!strcmp(mac_ntoa(mac, text), "02:0a:bc:00:ff:10"),
	   "mac_ntoa: lower case, two digits a byte");
}

int main(void)
{
	test_siphash();
	test_stable();
	test_bits();
	test_ntoa();
	plan(tap_n);
	return done_testing();
}
