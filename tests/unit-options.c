// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the command line: a table of argv rows, each parsed by
 * options_parse() in a child so that argp's exit status can be checked.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "conf/cfg.h"
#include "conf/conffile.h"
#include "conf/optable.h"
#include "conf/options.h"
#include "conf/optvalue.h"
#include "conf/peersfile.h"
#include "tap.h"

/*
 * One case. For status 0, want is a space-separated list of key=value
 * fields the parsed config must show (see test_render() for the keys);
 * for status 64 it is a text stderr must contain. out, when set, is a
 * space-separated list of words stdout must contain (--help, --version).
 * file, when set, is written to a file that "@CONF" in args names (for
 * --config). Every config that parses is written out (conffile_write())
 * and read back as a --config alone: it must be the same config.
 */
struct row {
	const char *const *args;
	int status;
	const char *want;
	const char *out;
	const char *file;
};

/* The argv of a row (designated, so rows may leave out the last fields). */
#define A(...) .args = ((const char *const[]){ __VA_ARGS__, NULL })
#define R "--remote", "192.0.2.2"
#define R6 "--remote", "2001:db8::2"
#define C "--config", "@CONF"
#define ADDR(n) "--address", "10.0." #n ".1/24"
#define ADDR16                                                                \
	ADDR(0), ADDR(1), ADDR(2), ADDR(3), ADDR(4), ADDR(5), ADDR(6),        \
	ADDR(7), ADDR(8), ADDR(9), ADDR(10), ADDR(11), ADDR(12), ADDR(13),    \
	ADDR(14), ADDR(15)

#define ALLOW(n) "--allow", "10." #n ".0.0/16"
#define ALLOW16                                                               \
	ALLOW(0), ALLOW(1), ALLOW(2), ALLOW(3), ALLOW(4), ALLOW(5), ALLOW(6), \
	ALLOW(7), ALLOW(8), ALLOW(9), ALLOW(10), ALLOW(11), ALLOW(12),        \
	ALLOW(13), ALLOW(14), ALLOW(15)

#define DEFAULTS                                                              \
	"dev=gsotun0 encap=vxlan local=- remote=192.0.2.2 port=4789 "         \
	"src_ports=8 vni=1 "                                                   \
	"key=- csum=1 gre_csum=0 seq=0 mtu=auto naddrs=0 ttl=0 tos=0 "       \
	"offload=1 verbosity=0 daemon=0 pidfile=- mac0=- queues=1 cpus=-"

/* Geneve options of 124 and 120 bytes of data: 252 bytes together. */
#define GENEVE_HEX_40                                                         \
	"0123456789abcdef0123456789abcdef01234567"
#define GENEVE_OPT_120                                                        \
	"0:1:" GENEVE_HEX_40 GENEVE_HEX_40 GENEVE_HEX_40 GENEVE_HEX_40        \
	GENEVE_HEX_40 GENEVE_HEX_40
#define GENEVE_OPT_124 GENEVE_OPT_120 "01234567"

/* 120 bytes: more than a socket's name holds. */
#define LONG_NAME                                                             \
	"0123456789012345678901234567890123456789012345678901234567890123456" \
	"7890123456789012345678901234567890123456789012345678901"

static const struct row rows[] = {
	/* Defaults, per encapsulation. */
	{ A(R), 0, DEFAULTS },
	{ A(R, "--encap", "gre"), 0,
	  "encap=gre port=0 src_ports=1 vni=0 key=- csum=0 gre_csum=0 seq=0 "
	  "dev=gsotun0 mtu=auto offload=1" },
	{ A(R, "--encap", "gre-udp"), 0,
	  "encap=gre-udp port=4754 src_ports=8 vni=0 key=- csum=1 gre_csum=0 "
	  "seq=0" },
	{ A(R, "--encap", "vxlan"), 0, DEFAULTS },
	{ A("--remote=192.0.2.2"), 0, DEFAULTS },

	/* --remote and --local */
	{ A(R6), 0, "remote=2001:db8::2 local=- port=4789" },
	/* --local alone: no peer yet, the underlay of its family. */
	{ A("--local", "192.0.2.1"), 0,
	  "local=192.0.2.1 remote=- nremotes=0 family=4" },
	{ A("--local", "2001:db8::1", "--encap", "gre"), 0,
	  "encap=gre remote=- nremotes=0 family=6" },
	{ A("--local", "::"), 0, "local=:: nremotes=0 family=6" },
	{ A("--local", "0.0.0.0", R), 0,
	  "local=0.0.0.0 remote=192.0.2.2 family=4" },
	{ A("--local", "0.0.0.0", R6), 64,
	  "--local and --remote must both be IPv4 or both IPv6" },
	{ A("--local", "224.0.0.1"), 64,
	  "invalid --local '224.0.0.1': a multicast address" },
	{ A("--local", "192.0.2"), 64,
	  "invalid --local '192.0.2': not an IPv4 or IPv6 address" },
	{ A("--local", "192.0.2.1", "--allow", "2001:db8::/32"), 64,
	  "--allow must be of the family of --remote (or --local)" },
	{ A("--local", "192.0.2.1", "--fdb", "52:54:00:00:00:01=192.0.2.9"),
	  64, "--fdb: 192.0.2.9 is not a --remote" },
	{ A("--local", "192.0.2.1", "--peers", "@CONF"), 0,
	  "nremotes=0 family=4", .file = "# none yet\n" },
	{ A("--local", "192.0.2.1", "--peers", "@CONF"), 64,
	  "--local and --remote must both be IPv4 or both IPv6",
	  .file = "remote 2001:db8::2\n" },
	{ A("--peers", "@CONF"), 64,
	  "no peer and no --local: give --remote ADDR, a 'remote' line in "
	  "--peers, or --local ADDR (the underlay's family) to start with no "
	  "peer", .file = "# none yet\n" },
	{ A("--peers", "@CONF"), 0, "remote=2001:db8::2 nremotes=1 family=6",
	  .file = "remote 2001:db8::2\n" },
	{ A(C), 0, "local=192.0.2.1 nremotes=0 family=4",
	  .file = "local 192.0.2.1\n" },
	/* Many peers */
	{ A("--remote", "192.0.2.3", R), 0,
	  "remote=192.0.2.3 nremotes=2 remote1=192.0.2.2 family=4 nfdb=0 "
	  "learning=0 ageing=300 max_address=4096 evpn=0 evpn_port=64789 "
	  "evpn_vteps=75" },
	{ A(R6, "--remote", "2001:db8::3"), 0,
	  "nremotes=2 remote1=2001:db8::3 family=6" },
	{ A(R, R), 64,
	  "invalid --remote '192.0.2.2': that peer is given already" },
	{ A(R, "--remote", "2001:db8::2"), 64,
	  "every --remote must be IPv4, or every one IPv6" },
	{ A(R, "--remote", "224.0.0.1"), 64, "multicast" },
	{ A(R, "--learning", "--ageing", "0", "--max-address", "1"), 0,
	  "learning=1 ageing=0 max_address=1" },
	{ A(R, "--ageing", "1000000", "--max-address", "1048576"), 0,
	  "learning=0 ageing=1000000 max_address=1048576" },
	{ A(R, "--ageing", "1000001"), 64,
	  "invalid --ageing '1000001': must be 0..1000000" },
	{ A(R, "--ageing", "-1"), 64, "invalid --ageing" },
	{ A(R, "--max-address", "0"), 64,
	  "invalid --max-address '0': must be 1..1048576" },
	{ A(R, "--max-address", "1048577"), 64, "invalid --max-address" },
	/*
	 * --evpn: a tap, vxlan, a VTEP address, no learning; the shadow
	 * devices' port (--evpn-port) not the one the underlay binds.
	 */
	{ A("--local", "198.18.0.3", "--evpn"), 0,
	  "evpn=1 evpn_port=64789 local=198.18.0.3 nremotes=0 family=4 "
	  "learning=0 port=4789 encap=vxlan mode=tap" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "5000",
	    "--vni", "2=ov2", "--ageing", "60", "--max-address", "10"), 0,
	  "evpn=1 evpn_port=5000 ntaps=1 tap0=2=ov2 ageing=60 "
	  "max_address=10" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "1"), 0,
	  "evpn=1 evpn_port=1" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "65535"), 0,
	  "evpn=1 evpn_port=65535" },
	{ A("--local", "2001:db8::3", "--evpn"), 0,
	  "evpn=1 local=2001:db8::3 family=6" },
	/* Another --port frees 4789 for the shadow devices. */
	{ A("--local", "198.18.0.3", "--evpn", "--port", "5000",
	    "--evpn-port", "4789"), 0, "evpn=1 evpn_port=4789 port=5000" },
	/* Peers and static entries of one's own, beside the fabric's. */
	{ A("--local", "192.0.2.1", "--evpn", R, "--fdb",
	    "52:54:00:00:00:01=192.0.2.2", "--peers", "@CONF"), 0,
	  "evpn=1 nremotes=2 remote=192.0.2.2 remote1=192.0.2.3 nfdb=2 "
	  "fdb0=52:54:00:00:00:01@0=192.0.2.2 "
	  "fdb1=52:54:00:00:00:03@0=192.0.2.3",
	  .file = "remote 192.0.2.3\nfdb 52:54:00:00:00:03=192.0.2.3\n" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-vteps", "1"), 0,
	  "evpn=1 evpn_port=64789 evpn_vteps=1" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-vteps", "100"),
	  0, "evpn=1 evpn_port=64789 evpn_vteps=100" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-vteps", "0"), 64,
	  "invalid --evpn-vteps '0': must be 1..100" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-vteps", "101"),
	  64, "invalid --evpn-vteps '101': must be 1..100" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-vteps", "50%"),
	  64, "invalid --evpn-vteps '50%'" },
	{ A("--local", "198.18.0.3", "--evpn-vteps", "50"), 64,
	  "--evpn-vteps without --evpn" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "0"), 64,
	  "invalid --evpn-port '0': must be 1..65535" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "65536"), 64,
	  "invalid --evpn-port '65536': must be 1..65535" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "x"), 64,
	  "invalid --evpn-port 'x'" },
	{ A("--local", "198.18.0.3", "--evpn-port", "5000"), 64,
	  "gsotun: --evpn-port without --evpn: it is the port of the shadow "
	  "vxlan devices that --evpn makes" },
	{ A("--local", "198.18.0.3", "--evpn-port", "64789"), 64,
	  "--evpn-port without --evpn" },
	{ A("--local", "198.18.0.3", "--evpn", "--evpn-port", "4789"), 64,
	  "gsotun: --evpn-port 4789 is the underlay's port (vxlan's, with no "
	  "--port): the kernel binds a vxlan device's port on every address "
	  "(vxlan_sock_add()), so the two would clash; give another "
	  "--evpn-port" },
	{ A("--local", "198.18.0.3", "--evpn", "--port", "5000",
	    "--evpn-port", "5000"), 64,
	  "gsotun: --evpn-port 5000 is the underlay's port (--port): the "
	  "kernel binds" },
	{ A("--local", "198.18.0.3", "--evpn", "--port", "64789"), 64,
	  "--evpn-port 64789 is the underlay's port (--port)" },
	{ A("--evpn"), 64,
	  "gsotun: --evpn needs --local ADDR, a unicast address of this host "
	  "(not 0.0.0.0 or ::): the VTEP address that the shadow vxlan "
	  "devices carry and zebra advertises" },
	{ A(R, "--evpn"), 64, "--evpn needs --local ADDR" },
	{ A("--local", "0.0.0.0", "--evpn"), 64, "--evpn needs --local ADDR" },
	{ A("--local", "::", "--evpn", R6), 64, "--evpn needs --local ADDR" },
	{ A("--local", "198.18.0.3", "--evpn", "--learning"), 64,
	  "gsotun: --learning with --evpn: where a MAC lives is the fabric's "
	  "to say (type-2 routes, through zebra), not learnt from frames; "
	  "leave out --learning" },
	{ A("--local", "198.18.0.3", "--evpn", "--encap", "gre"), 64,
	  "gsotun: --evpn needs --encap vxlan, not gre: zebra knows the "
	  "fabric only through the kernel's vxlan devices (RFC 8365)" },
	{ A("--local", "198.18.0.3", "--evpn", "--encap", "gre-udp"), 64,
	  "--evpn needs --encap vxlan, not gre-udp" },
	{ A("--local", "198.18.0.3", "--evpn", "--encap", "vxlan-gpe"), 64,
	  "--evpn needs --encap vxlan, not vxlan-gpe" },
	{ A("--local", "198.18.0.3", "--evpn", "--mode", "tun", "--encap",
	    "gre-udp"), 64,
	  "gsotun: --evpn is for --mode tap: the fabric advertises MACs, and "
	  "a tun's IP packets carry none" },
	{ A("--local", "198.18.0.3", "--evpn", "--mode", "tun"), 64,
	  "--evpn is for --mode tap" },
	{ A("--local", "198.18.0.3", "--evpn-p", "5000", "--evpn"), 0,
	  "evpn=1 evpn_port=5000" },
	{ A("--local", "198.18.0.3", "--evp"), 64,
	  "gsotun: option '--evp' is ambiguous" },
	{ A("--local", "198.18.0.3", "--evpm"), 64,
	  "unrecognized option '--evpm' (did you mean --evpn?)" },
	/* More taps: --vni N=DEV, --key N=DEV, --address DEV=CIDR */
	{ A(R, "--vni", "2=ov2"), 0, "vni=1 ntaps=1 tap0=2=ov2" },
	{ A(R, "--vni", "5", "--vni", "6=ov6", "--vni", "0x7=ov7"), 0,
	  "vni=5 ntaps=2 tap0=6=ov6 tap1=7=ov7" },
	{ A(R, "--vni", "1=ov1"), 64, "two taps with one --vni" },
	{ A(R, "--vni", "2=ov", "--vni", "2=ov3"), 64,
	  "two taps with one --vni" },
	{ A(R, "--vni", "2=gsotun0"), 64, "two taps with one name" },
	{ A(R, "--dev", "x", "--vni", "2=ov2", "--vni", "3=ov2"), 64,
	  "two taps with one name" },
	{ A(R, "--encap", "gre", "--key", "7=g7"), 0,
	  "key=- ntaps=1 tap0=7=g7" },
	{ A(R, "--encap", "gre-udp", "--key", "7", "--key", "8=g8"), 0,
	  "key=7 ntaps=1 tap0=8=g8" },
	{ A(R, "--encap", "gre-udp", "--key", "7", "--key", "7=g7"), 64,
	  "two taps with one --key" },
	{ A(R, "--key", "7=g7"), 64, "--key N=DEV is for --encap gre" },
	{ A(R, "--encap", "gre", "--vni", "2=ov2"), 64, "--vni is for" },
	{ A(R, "--vni", "x=ov"), 64,
	  "invalid --vni 'x=ov': not a number in range before '='" },
	{ A(R, "--vni", "16777216=ov"), 64, "not a number in range" },
	{ A(R, "--vni", "=ov"), 64, "not a number in range" },
	{ A(R, "--vni", "2="), 64, "invalid --vni '2=': empty name" },
	{ A(R, "--vni", "2=a/b"), 64, "invalid --vni '2=a/b'" },
	{ A(R, "--vni", "2=ov2", "--address", "ov2=10.0.0.1/24", "--address",
	    "10.1.0.1/24", "--address", "gsotun0=10.2.0.1/24"), 0,
	  "naddrs=3 addr0=10.0.0.1/24 addrtap0=1 addr1=10.1.0.1/24 "
	  "addrtap1=0 addr2=10.2.0.1/24 addrtap2=0" },
	{ A(R, "--address", "nope=10.0.0.1/24"), 64,
	  "--address DEV=CIDR names no tap" },
	{ A(R, "--address", "=10.0.0.1/24"), 64,
	  "invalid --address '=10.0.0.1/24': not a device name" },
	{ A(R, "--vni", "2=a2", "--vni", "3=a3", "--vni", "4=a4", "--vni",
	    "5=a5", "--vni", "6=a6", "--vni", "7=a7", "--vni", "8=a8",
	    "--vni", "9=a9", "--vni", "10=a10", "--vni", "11=a11", "--vni",
	    "12=a12", "--vni", "13=a13", "--vni", "14=a14", "--vni", "15=a15",
	    "--vni", "16=a16"), 0, "ntaps=15 tap14=16=a16" },
	{ A(R, "--vni", "2=a2", "--vni", "3=a3", "--vni", "4=a4", "--vni",
	    "5=a5", "--vni", "6=a6", "--vni", "7=a7", "--vni", "8=a8",
	    "--vni", "9=a9", "--vni", "10=a10", "--vni", "11=a11", "--vni",
	    "12=a12", "--vni", "13=a13", "--vni", "14=a14", "--vni", "15=a15",
	    "--vni", "16=a16", "--vni", "17=a17"), 64,
	  "too many taps: at most 16" },
	/* --mac [DEV=]MAC */
	{ A(R, "--mac", "02:00:00:00:00:01"), 0, "mac0=02:00:00:00:00:01" },
	{ A(R, "--mac", "52:54:00:AB:cd:01"), 0, "mac0=52:54:00:ab:cd:01" },
	{ A(R, "--mac", "ov2=02:00:00:00:00:02", "--vni", "2=ov2"), 0,
	  "mac0=- mac1=02:00:00:00:00:02" },
	{ A(R, "--vni", "2=ov2", "--vni", "3=ov3", "--mac",
	    "gsotun0=02:00:00:00:00:03", "--mac", "ov3=02:00:00:00:00:04"), 0,
	  "mac0=02:00:00:00:00:03 mac1=- mac2=02:00:00:00:00:04" },
	{ A(R, "--mac", "01:00:5e:00:00:01"), 64,
	  "invalid --mac '01:00:5e:00:00:01': a multicast MAC" },
	{ A(R, "--mac", "ff:ff:ff:ff:ff:ff"), 64, "a multicast MAC" },
	{ A(R, "--mac", "03:00:00:00:00:01"), 64, "a multicast MAC" },
	{ A(R, "--mac", "00:00:00:00:00:00"), 64,
	  "invalid --mac '00:00:00:00:00:00': the all-zero MAC" },
	{ A(R, "--mac", "02:00:00:00:00"), 64,
	  "invalid --mac '02:00:00:00:00': not a MAC address" },
	{ A(R, "--mac", "02-00-00-00-00-01"), 64, "not a MAC address" },
	{ A(R, "--mac", "02:00:00:00:00:0g"), 64, "not a MAC address" },
	{ A(R, "--mac", "02:00:00:00:00:011"), 64, "not a MAC address" },
	{ A(R, "--mac", ""), 64, "invalid --mac '': not a MAC address" },
	{ A(R, "--mac", "nope=02:00:00:00:00:01"), 64,
	  "--mac nope=MAC: no tap is named nope" },
	{ A(R, "--mac", "=02:00:00:00:00:01"), 64,
	  "invalid --mac '=02:00:00:00:00:01': not a device name" },
	{ A(R, "--mac", "a/b=02:00:00:00:00:01"), 64, "invalid --mac" },
	{ A(R, "--mac", "02:00:00:00:00:01", "--mac",
	    "gsotun0=02:00:00:00:00:02"), 64, "two --mac for tap gsotun0" },
	{ A(R, "--vni", "2=ov2", "--mac", "ov2=02:00:00:00:00:01", "--mac",
	    "ov2=02:00:00:00:00:02"), 64, "two --mac for tap ov2" },
	/* Unknown long options, with the closest name when it is close */
	{ A(R, "--remotee", "192.0.2.3"), 64,
	  "gsotun: unrecognized option '--remotee' (did you mean --remote?)" },
	{ A(R, "--lerning"), 64, "(did you mean --learning?)" },
	/* Two letters swapped are one slip: 2 of 4 would be too many. */
	{ A(R, "--mdoe", "tun"), 64,
	  "unrecognized option '--mdoe' (did you mean --mode?)" },
	{ A(R, "--bogus=1"), 64, "gsotun: unrecognized option '--bogus'\n" },
	{ A(R, "--foo"), 64, "unrecognized option '--foo'\nTry" },
	{ A(R, "--address", "--foo"), 64, "invalid --address '--foo'" },
	{ A(R, "--ma", "5"), 64, "gsotun: option '--ma' is ambiguous" },
	{ A(R, "--", "--foo"), 64, "gsotun: unexpected argument '--foo'" },
	{ A(R, "--learn"), 0, "learning=1" },
	/* --peers */
	{ A(R, "--peers", "/dev/null"), 64,
	  "cannot read --peers '/dev/null': not a regular file" },
	{ A(R, "--peers", "/"), 64, "cannot read --peers '/': not a regular" },
	{ A(R, "--peers", "/nonexistent/peers"), 64,
	  "cannot read --peers '/nonexistent/peers': cannot open it: No such "
	  "file" },
	{ A(R, "--peers", ""), 64, "invalid --peers '': empty file name" },
	/* --fdb */
	{ A(R, "--fdb", "52:54:00:AB:cd:01=192.0.2.2"), 0,
	  "nfdb=1 fdb0=52:54:00:ab:cd:01@0=192.0.2.2" },
	{ A("--fdb", "52:54:00:00:00:01@4094=192.0.2.3", R,
	    "--remote", "192.0.2.3", "--fdb", "52:54:00:00:00:01@1=192.0.2.2",
	    "--fdb", "52:54:00:00:00:01=192.0.2.2"), 0,
	  "nfdb=3 fdb0=52:54:00:00:00:01@4094=192.0.2.3 "
	  "fdb1=52:54:00:00:00:01@1=192.0.2.2 "
	  "fdb2=52:54:00:00:00:01@0=192.0.2.2" },
	{ A(R6, "--fdb", "02:00:00:00:00:01=2001:db8::2"), 0,
	  "fdb0=02:00:00:00:00:01@0=2001:db8::2" },
	{ A(R, "--fdb", "52:54:00:00:00:01=192.0.2.9"), 64,
	  "--fdb: 192.0.2.9 is not a --remote" },
	{ A(R, "--fdb", "52:54:00:00:00:01=2001:db8::2"), 64,
	  "--fdb: 2001:db8::2 is not a --remote" },
	{ A(R, "--fdb", "52:54:00:00:00:01"), 64,
	  "invalid --fdb '52:54:00:00:00:01': missing =ADDR" },
	{ A(R, "--fdb", "52:54:00:00:00=192.0.2.2"), 64, "not a MAC address" },
	{ A(R, "--fdb", "52:54:00:00:00:0g=192.0.2.2"), 64,
	  "not a MAC address" },
	{ A(R, "--fdb", "52-54-00-00-00-01=192.0.2.2"), 64,
	  "not a MAC address" },
	{ A(R, "--fdb", "52:54:00:00:00:011=192.0.2.2"), 64,
	  "not a MAC address" },
	{ A(R, "--fdb", "=192.0.2.2"), 64, "not a MAC address" },
	{ A(R, "--fdb", "01:00:5e:00:00:01=192.0.2.2"), 64, "multicast MAC" },
	{ A(R, "--fdb", "ff:ff:ff:ff:ff:ff=192.0.2.2"), 64, "multicast MAC" },
	{ A(R, "--fdb", "00:00:00:00:00:00=192.0.2.2"), 64, "all-zero MAC" },
	{ A(R, "--fdb", "52:54:00:00:00:01@0=192.0.2.2"), 64,
	  "VID must be 1..4094" },
	{ A(R, "--fdb", "52:54:00:00:00:01@4095=192.0.2.2"), 64,
	  "VID must be 1..4094" },
	{ A(R, "--fdb", "52:54:00:00:00:01@=192.0.2.2"), 64,
	  "VID must be 1..4094" },
	{ A(R, "--fdb", "52:54:00:00:00:01@x=192.0.2.2"), 64,
	  "VID must be 1..4094" },
	{ A(R, "--fdb", "52:54:00:00:00:01=192.0.2.2x"), 64,
	  "not an IPv4 or IPv6 address" },
	{ A(R, "--fdb", "52:54:00:00:00:01=192.0.2.2", "--fdb",
	    "52:54:00:00:00:01=192.0.2.2"), 64,
	  "that MAC and VLAN have an entry already" },
	{ A("--dev", "x"), 64,
	  "missing --remote ADDR (the peer's address), or --local ADDR (the "
	  "underlay's own) to start with no peer" },
	{ A(NULL), 64, "missing --remote" },
	{ A("--remote", "foo"), 64, "invalid --remote 'foo'" },
	{ A("--remote="), 64, "invalid --remote ''" },
	{ A("--remote", "192.0.2"), 64, "invalid --remote '192.0.2'" },
	{ A("--remote", "192.0.2.2.2"), 64, "invalid --remote" },
	{ A("--remote", "256.0.2.2"), 64, "invalid --remote '256.0.2.2'" },
	{ A("--remote", "192.0.2.2 "), 64, "invalid --remote" },
	{ A("--remote", "192.0.2.2/24"), 64, "invalid --remote" },
	{ A("--remote", "224.0.0.1"), 64, "multicast" },
	{ A("--remote", "0.0.0.0"), 64, "invalid --remote '0.0.0.0'" },
	{ A("--remote", "255.255.255.255"), 64, "broadcast" },
	{ A("--remote", "ff02::1"), 64, "invalid --remote 'ff02::1'" },
	{ A("--remote", "::"), 64, "invalid --remote '::'" },
	{ A("--remote", "fe80::1"), 64, "link-local" },
	{ A("--remote", "::ffff:192.0.2.2"), 64, "IPv4-mapped" },
	{ A("--remote", "2001:db8::g"), 64, "invalid --remote" },
	{ A("--remote"), 64, NULL },
	{ A("--local", "192.0.2.1", R), 0,
	  "local=192.0.2.1 remote=192.0.2.2" },
	{ A(R6, "--local", "2001:db8::1"), 0,
	  "local=2001:db8::1 remote=2001:db8::2" },
	{ A("--local", "192.0.2.1", R6), 64, "--local and --remote" },
	{ A("--local", "2001:db8::1", R), 64, "--local and --remote" },
	{ A("--local", "bad", R), 64, "invalid --local 'bad'" },
	{ A("--local", "", R), 64, "invalid --local ''" },
	{ A("--local", "239.1.1.1", R), 64, "invalid --local '239.1.1.1'" },

	/* --encap */
	{ A(R, "--encap", "foo"), 64, "invalid --encap 'foo'" },
	{ A(R, "--encap", ""), 64, "invalid --encap ''" },
	{ A(R, "--encap", "VXLAN"), 64, "invalid --encap 'VXLAN'" },
	{ A(R, "--encap", "gre-"), 64, "invalid --encap 'gre-'" },

	/* --source-ports */
	{ A(R, "--source-ports", "1"), 0, "src_ports=1 port=4789" },
	{ A(R, "--source-ports", "64"), 0, "src_ports=64" },
	{ A(R, "--source-ports=16", "--encap", "gre-udp"), 0,
	  "src_ports=16 encap=gre-udp" },
	{ A(R, "--source-ports", "0"), 64,
	  "invalid --source-ports '0': must be 1..64" },
	{ A(R, "--source-ports", "65"), 64, "invalid --source-ports '65'" },
	{ A(R, "--source-ports", "x"), 64, "invalid --source-ports 'x'" },
	{ A(R, "--source-ports", "2", "--encap", "gre"), 64,
	  "--source-ports is not used with --encap gre" },
	{ A(R, "--source-ports"), 64, NULL },

	/* --port */
	{ A(R, "--port", "8472"), 0, "port=8472 encap=vxlan" },
	{ A(R, "--port", "1"), 0, "port=1" },
	{ A(R, "--port", "65535"), 0, "port=65535" },
	{ A(R, "--port", "0x1000"), 0, "port=4096" },
	{ A(R, "--port", "0X12b5"), 0, "port=4789" },
	{ A(R, "--port", "010"), 0, "port=10" },
	{ A(R, "--port", "0"), 64, "invalid --port '0': must be 1..65535" },
	{ A(R, "--port", "65536"), 64, "invalid --port '65536'" },
	{ A(R, "--port", "-1"), 64, "invalid --port '-1'" },
	{ A(R, "--port", "12ab"), 64, "invalid --port '12ab'" },
	{ A(R, "--port", ""), 64, "invalid --port ''" },
	{ A(R, "--port", " 80"), 64, "invalid --port ' 80'" },
	{ A(R, "--port", "+80"), 64, "invalid --port '+80'" },
	{ A(R, "--port", "80 "), 64, "invalid --port '80 '" },
	{ A(R, "--port", "0x"), 64, "invalid --port '0x'" },
	{ A(R, "--port", "0x0x10"), 64, "invalid --port" },
	{ A(R, "--port", "0x-10"), 64, "invalid --port" },
	{ A(R, "--port", "99999999999999999999999"), 64, "invalid --port" },
	{ A(R, "--port", "18446744073709551617"), 64, "invalid --port" },
	{ A(R, "--encap", "gre", "--port", "4789"), 64,
	  "--port is not used with --encap gre" },
	{ A(R, "--port", "4789", "--encap", "gre"), 64, "--port" },
	{ A(R, "--encap", "gre-udp", "--port", "5000"), 0,
	  "encap=gre-udp port=5000" },
	{ A(R, "--port", "5000", "--encap", "gre-udp"), 0, "port=5000" },

	/* --vni */
	{ A(R, "--vni", "0"), 0, "vni=0" },
	{ A(R, "--vni", "16777215"), 0, "vni=16777215" },
	{ A(R, "--vni", "0xffffff"), 0, "vni=16777215" },
	{ A(R, "--vni", "42"), 0, "vni=42 key=- port=4789" },
	{ A(R, "--vni", "16777216"), 64,
	  "invalid --vni '16777216': must be 0..16777215" },
	{ A(R, "--vni", "0x1000000"), 64, "invalid --vni '0x1000000'" },
	{ A(R, "--vni", "-1"), 64, "invalid --vni '-1'" },
	{ A(R, "--vni", "1x"), 64, "invalid --vni '1x'" },
	{ A(R, "--vni", "1.5"), 64, "invalid --vni '1.5'" },
	{ A(R, "--vni="), 64, "invalid --vni ''" },
	{ A(R, "--encap", "gre", "--vni", "5"), 64, "--vni is for" },
	{ A(R, "--vni", "5", "--encap", "gre-udp"), 64, "--vni is for" },

	/* --key */
	{ A(R, "--encap", "gre", "--key", "0"), 0, "key=0 vni=0" },
	{ A(R, "--encap", "gre", "--key", "4294967295"), 0,
	  "key=4294967295" },
	{ A(R, "--encap", "gre-udp", "--key", "0xdeadbeef"), 0,
	  "key=3735928559 port=4754" },
	{ A(R, "--key", "7", "--encap", "gre"), 0, "key=7 encap=gre" },
	{ A(R, "--encap", "gre", "--key", "4294967296"), 64,
	  "invalid --key '4294967296': must be 0..4294967295" },
	{ A(R, "--encap", "gre", "--key", "-5"), 64, "invalid --key '-5'" },
	{ A(R, "--encap", "gre", "--key", "k"), 64, "invalid --key 'k'" },
	{ A(R, "--key", "7"), 64, "--key is for" },

	/* --csum, --no-csum */
	{ A(R, "--no-csum"), 0, "csum=0 gre_csum=0" },
	{ A(R, "--csum"), 0, "csum=1 gre_csum=0" },
	{ A(R, "--encap", "gre", "--csum"), 0, "csum=1 gre_csum=1" },
	{ A(R, "--csum", "--encap", "gre"), 0, "csum=1 gre_csum=1" },
	{ A(R, "--encap", "gre", "--no-csum"), 0, "csum=0 gre_csum=0" },
	{ A(R, "--encap", "gre-udp", "--no-csum"), 0, "csum=0 gre_csum=0" },
	{ A(R, "--encap", "gre-udp", "--csum"), 0, "csum=1 gre_csum=0" },
	{ A(R, "--no-csum", "--encap", "gre-udp"), 0, "csum=0" },
	{ A(R, "--csum", "--no-csum"), 0, "csum=0" },
	{ A(R, "--no-csum", "--csum"), 0, "csum=1" },
	{ A(R, "--csum=1"), 64, NULL },

	/* --seq */
	{ A(R, "--encap", "gre", "--seq"), 0, "seq=1 key=- csum=0" },
	{ A(R, "--seq", "--encap", "gre-udp"), 0, "seq=1" },
	{ A(R, "--seq"), 64, "--seq is for" },
	/* --geneve-opt: whole TLVs, in order; a critical type sets C. */
	{ A(R, "--encap", "geneve", "--geneve-opt", "0102:80:0000000a"), 0,
	  "encap=geneve port=6081 vni=1 gopts=010280010000000a gcrit=1" },
	{ A(R, "--encap", "geneve", "--geneve-opt", "ffff:1:",
	    "--geneve-opt", "1:7f:DEADBEEFcafef00d"), 0,
	  "gopts=ffff010000017f02deadbeefcafef00d gcrit=0" },
	{ A(R, "--geneve-opt", "1:2:00000000"), 64,
	  "--geneve-opt is for --encap geneve, not vxlan" },
	{ A(R, "--encap", "geneve", "--geneve-opt", "1:2:3"), 64,
	  "invalid --geneve-opt '1:2:3': must be CLASS:TYPE:HEX" },
	{ A(R, "--encap", "geneve", "--geneve-opt", "10000:2:"), 64,
	  "invalid --geneve-opt '10000:2:'" },
	{ A(R, "--encap", "geneve", "--geneve-opt", "1:100:"), 64,
	  "invalid --geneve-opt '1:100:'" },
	{ A(R, "--encap", "geneve", "--geneve-opt", "1:2:000000"), 64,
	  "invalid --geneve-opt '1:2:000000'" },
	{ A(R, "--encap", "geneve", "--geneve-opt", GENEVE_OPT_124,
	    "--geneve-opt", GENEVE_OPT_124, "--geneve-opt", "1:2:"), 64,
	  "too many --geneve-opt: 252 bytes" },
	{ A(R, "--encap", "geneve", "--geneve-opt", GENEVE_OPT_124,
	    "--geneve-opt", GENEVE_OPT_120), 0, "gcrit=0" },
	/* --geneve-echo: a tun's flows; the room goes to the MTU. */
	{ A(R, "--encap", "geneve", "--mode", "tun"), 0,
	  "gcrit=0 echo=0 room=0" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo", "100"),
	  0, "gcrit=0 echo=100 room=64" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo", "1",
	    "--geneve-echo-room", "252"), 0, "echo=1 room=252" },
	{ A(R, "--geneve-echo", "100"), 64,
	  "--geneve-echo is for --encap geneve, not vxlan" },
	{ A(R, "--encap", "geneve", "--geneve-echo", "100"), 64,
	  "--geneve-echo is for --mode tun" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo",
	    "1048577"), 64, "invalid --geneve-echo '1048577'" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo", "1",
	    "--geneve-echo-room", "30"), 64,
	  "--geneve-echo-room must be a multiple of 4" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo", "1",
	    "--geneve-echo-room", "256"), 64,
	  "invalid --geneve-echo-room '256'" },
	{ A(R, "--encap", "geneve", "--mode", "tun", "--geneve-echo-room",
	    "32"), 64, "--geneve-echo-room without --geneve-echo" },

	/* --dev */
	{ A(R, "--dev", "tun-a"), 0, "dev=tun-a" },
	{ A(R, "--dev", "abcdefghijklmno"), 0, "dev=abcdefghijklmno" },
	{ A(R, "--dev", "abcdefghijklmnop"), 64,
	  "invalid --dev 'abcdefghijklmnop'" },
	{ A(R, "--dev", ""), 64, "invalid --dev ''" },
	{ A(R, "--dev", "a/b"), 64, "invalid --dev 'a/b'" },
	{ A(R, "--dev", "a:b"), 64, "invalid --dev 'a:b'" },
	{ A(R, "--dev", "a b"), 64, "invalid --dev 'a b'" },
	{ A(R, "--dev", "a\tb"), 64, "invalid --dev" },
	/* A name a --config file could not say back: */
	{ A(R, "--dev", "a=b"), 64, "invalid --dev 'a=b': '/', ':', '%', '='" },
	{ A(R, "--dev", "#gt"), 64,
	  "invalid --dev '#gt': it may not begin with '#'" },
	{ A(R, "--dev", "a\x01"), 64, "control characters are not allowed" },
	{ A(R, "--dev", "a\x7f"), 64, "control characters are not allowed" },
	{ A(R, "--vni", "5=\x01x"), 64, "control characters are not allowed" },
	{ A(R, "--dev", "a#b"), 0, "dev=a#b" },
	{ A(R, "--dev", "."), 64, "invalid --dev '.'" },
	{ A(R, "--dev", ".."), 64, "invalid --dev '..'" },
	{ A(R, "--dev", "tap%d"), 64, "invalid --dev 'tap%d'" },

	/* --mtu */
	{ A(R, "--mtu", "1400"), 0, "mtu=1400" },
	{ A(R, "--mtu", "68"), 0, "mtu=68" },
	{ A(R, "--mtu", "65535"), 0, "mtu=65535" },
	{ A(R, "--mtu", "9000", "--mtu", "auto"), 0, "mtu=auto" },
	{ A(R, "--mtu", "67"), 64, "invalid --mtu '67': must be 68..65535" },
	{ A(R, "--mtu", "65536"), 64, "invalid --mtu '65536'" },
	{ A(R, "--mtu", "0"), 64, "invalid --mtu '0'" },
	{ A(R, "--mtu", "AUTO"), 64, "invalid --mtu 'AUTO'" },
	{ A(R, "--mtu", ""), 64, "invalid --mtu ''" },
	{ A(R, "--mtu", "1400k"), 64, "invalid --mtu '1400k'" },
	{ A(R, "--mtu", "-1400"), 64, "invalid --mtu '-1400'" },

	/* --address */
	{ A(R, "--address", "10.0.0.1/24"), 0,
	  "naddrs=1 addr0=10.0.0.1/24" },
	{ A(R, "--address", "10.0.0.1/24", "--address", "fd00::1/64"), 0,
	  "naddrs=2 addr0=10.0.0.1/24 addr1=fd00::1/64" },
	{ A(R, "--address", "10.0.0.1/32", "--address", "2001:db8::1/128",
	    "--address", "0.0.0.0/0"), 0,
	  "naddrs=3 addr0=10.0.0.1/32 addr1=2001:db8::1/128 addr2=0.0.0.0/0" },
	{ A(R6, "--address", "192.168.1.1/16"), 0,
	  "addr0=192.168.1.1/16 remote=2001:db8::2" },
	{ A(R, ADDR16), 0, "naddrs=16 addr0=10.0.0.1/24 addr15=10.0.15.1/24" },
	{ A(R, ADDR16, "--address", "10.1.0.1/24"), 64,
	  "too many --address" },
	{ A(R, "--address", "10.0.0.1"), 64,
	  "invalid --address '10.0.0.1': missing /PREFIX" },
	{ A(R, "--address", "fd00::1"), 64, "invalid --address 'fd00::1'" },
	{ A(R, "--address", "10.0.0.1/33"), 64,
	  "invalid --address '10.0.0.1/33'" },
	{ A(R, "--address", "fd00::1/129"), 64,
	  "invalid --address 'fd00::1/129'" },
	{ A(R, "--address", "garbage/24"), 64,
	  "invalid --address 'garbage/24'" },
	{ A(R, "--address", "10.0.0.1/"), 64, "invalid --address '10.0.0.1/'" },
	{ A(R, "--address", "10.0.0.1/-1"), 64, "invalid --address" },
	{ A(R, "--address", "10.0.0.1/0x18"), 64, "invalid --address" },
	{ A(R, "--address", "10.0.0.1/24x"), 64, "invalid --address" },
	{ A(R, "--address", "10.0.0.1/24/8"), 64, "invalid --address" },
	{ A(R, "--address", "/24"), 64, "invalid --address '/24'" },
	{ A(R, "--address", ""), 64, "invalid --address ''" },

	/* --ttl, --tos */
	{ A(R, "--ttl", "1"), 0, "ttl=1" },
	{ A(R, "--ttl", "255"), 0, "ttl=255" },
	{ A(R, "--ttl", "0x40"), 0, "ttl=64" },
	{ A(R, "--ttl", "0"), 64, "invalid --ttl '0': must be 1..255" },
	{ A(R, "--ttl", "256"), 64, "invalid --ttl '256'" },
	{ A(R, "--ttl", "-1"), 64, "invalid --ttl '-1'" },
	{ A(R, "--ttl", "x"), 64, "invalid --ttl 'x'" },
	{ A(R, "--ttl", ""), 64, "invalid --ttl ''" },
	{ A(R, "--tos", "0"), 0, "tos=0" },
	{ A(R, "--tos", "255"), 0, "tos=255" },
	{ A(R, "--tos", "0xb8"), 0, "tos=184" },
	{ A(R, "--tos", "inherit"), 0, "tos=inherit" },
	{ A(R, "--tos", "inherit", "--tos", "4"), 0, "tos=4" },
	{ A(R, "--tos", "256"), 64, "invalid --tos '256'" },
	{ A(R, "--tos", "-1"), 64, "invalid --tos '-1'" },
	{ A(R, "--tos", "Inherit"), 64, "invalid --tos 'Inherit'" },
	{ A(R, "--tos", ""), 64, "invalid --tos ''" },

	/* --allow */
	{ A(R, "--allow", "192.0.2.0/24"), 0, "nallow=1 allow0=192.0.2.0/24" },
	{ A(R, "--allow", "198.51.100.7/32", "--allow", "0.0.0.0/0"), 0,
	  "nallow=2 allow0=198.51.100.7/32 allow1=0.0.0.0/0" },
	{ A(R6, "--allow", "2001:db8:1::/48"), 0,
	  "nallow=1 allow0=2001:db8:1::/48" },
	{ A(R, "--allow", "2001:db8::/32"), 64,
	  "--allow must be of the family of --remote" },
	{ A(R6, "--allow", "192.0.2.0/24"), 64,
	  "--allow must be of the family of --remote" },
	{ A(R, "--allow", "192.0.2.1/24"), 64,
	  "invalid --allow '192.0.2.1/24': host bits set" },
	{ A(R6, "--allow", "2001:db8::1/64"), 64, "host bits set" },
	{ A(R, "--allow", "192.0.2.0"), 64, "missing /PREFIX" },
	{ A(R, "--allow", "192.0.2.0/33"), 64, "prefix must be 0..32" },
	{ A(R, "--allow", "x/8"), 64, "not an IPv4 or IPv6 address" },
	{ A(R, "--allow", ""), 64, "invalid --allow ''" },
	{ A(R, ALLOW16), 0, "nallow=16" },
	{ A(R, ALLOW16, "--allow", "10.99.0.0/16"), 64,
	  "too many --allow: at most 16" },

	/* --user and --chroot */
	{ A(R), 0, "user=- chroot=-" },
	{ A(R, "--user", "nobody"), 0, "user=nobody chroot=-" },
	{ A(R, "--user", "nobody", "--chroot", "/var/empty"), 0,
	  "user=nobody chroot=/var/empty" },
	{ A(R, "--chroot", "/var/empty", "--user", "a", "--user", "b"), 0,
	  "user=b chroot=/var/empty" },
	{ A(R, "--chroot", "/var/empty"), 64, "--chroot needs --user" },
	{ A(R, "--user", "nobody", "--chroot", "var/empty"), 64,
	  "not an absolute path" },
	{ A(R, "--user", ""), 64, "invalid --user ''" },
	{ A(R, "--user", "nobody", "--chroot", ""), 64, "invalid --chroot ''" },
	{ A(R, "--user"), 64, NULL },

	/* --df and --pmtud */
	{ A(R), 0, "df=unset pmtud=1" },
	{ A(R, "--df", "set"), 0, "df=set pmtud=1" },
	{ A(R, "--df", "unset"), 0, "df=unset" },
	{ A(R, "--df", "inherit"), 0, "df=inherit" },
	{ A(R, "--df", "set", "--df", "inherit"), 0, "df=inherit" },
	{ A(R, "--df=set", "--encap", "gre"), 0, "df=set encap=gre" },
	{ A(R, "--df", "Set"), 64, "invalid --df 'Set'" },
	{ A(R, "--df", ""), 64, "invalid --df ''" },
	{ A(R, "--df", "on"), 64, "must be set, unset or inherit" },
	{ A(R, "--df"), 64, NULL },
	{ A(R6, "--df", "set"), 64, "--df is for IPv4 underlays" },
	{ A(R6, "--df", "unset"), 64, "--df is for IPv4 underlays" },
	{ A(R6), 0, "df=unset" },
	{ A(R, "--pmtud", "off"), 0, "pmtud=0 df=unset" },
	{ A(R, "--pmtud", "on"), 0, "pmtud=1" },
	{ A(R, "--pmtud", "off", "--pmtud", "on"), 0, "pmtud=1" },
	{ A(R6, "--pmtud=off"), 0, "pmtud=0" },
	{ A(R, "--pmtud", "1"), 64, "invalid --pmtud '1'" },
	{ A(R, "--pmtud", "OFF"), 64, "must be on or off" },

	/* Device and process flags */
	{ A(R, "--no-offload"), 0, "offload=0 gro=0 csum=1" },
	{ A(R, "--no-gro"), 0, "gro=0 offload=1" },
	{ A(R, "--no-gro=1"), 64, NULL },
	{ A(R), 0, "gro=1 udp_gro=auto" },
	{ A(R, "--udp-gro", "on"), 0, "gro=1 udp_gro=on" },
	{ A(R, "--udp-gro=off"), 0, "gro=1 udp_gro=off" },
	{ A(R, "--udp-gro", "off", "--udp-gro", "auto"), 0, "udp_gro=auto" },
	{ A(R, "--no-gro", "--udp-gro", "on"), 0, "gro=0 udp_gro=on" },
	{ A(R, "--udp-gro", "yes"), 64, "invalid --udp-gro 'yes'" },
	{ A(R, "--udp-gro", "ON"), 64, "must be auto, on or off" },
	{ A(R, "--udp-gro"), 64, NULL },
	{ A(R, "-v"), 0, "verbosity=1" },
	{ A(R, "-vv", "--verbose"), 0, "verbosity=3" },
	{ A(R, "-v", "-q", "-q"), 0, "verbosity=-1" },
	{ A(R, "--quiet"), 0, "verbosity=-1" },
	{ A(R, "--daemon"), 0, "daemon=1 pidfile=-" },
	{ A(R, "--pidfile", "/run/gsotun.pid"), 0,
	  "pidfile=/run/gsotun.pid daemon=0" },
	{ A(R, "--pidfile", "/a.pid", "--pidfile", "/b.pid", "--daemon"), 0,
	  "pidfile=/b.pid daemon=1" },
	{ A(R, "--pidfile", "run/x.pid"), 0, "pidfile=$CWD/run/x.pid" },
	{ A(R, "--pidfile", ""), 64, "invalid --pidfile ''" },
	/* --control: an abstract name, a file, none; it must fit. */
	{ A(R, "--control", "none"), 0, "control=none" },
	{ A(R, "--control", "@ops/gt0"), 0, "control=@ops/gt0" },
	{ A(R, "--control", "/run/gsotun/gt0.sock"), 0,
	  "control=/run/gsotun/gt0.sock" },
	{ A(R, "--control", "@"), 64, "invalid --control '@': empty name" },
	{ A(R, "--control", "/" LONG_NAME), 64,
	  "longer than a socket name can be" },
	/* --admin-group: a group that may change, through the socket. */
	{ A(R), 0, "admin_group=-" },
	{ A(R, "--admin-group", "netadm"), 0, "admin_group=netadm" },
	{ A(R, "--admin-group", "a", "--admin-group", "4242"), 0,
	  "admin_group=4242" },
	{ A(R, "--admin-group", ""), 64, "invalid --admin-group ''" },
	{ A(R, "--admin-group", "netadm", "--control", "none"), 64,
	  "--admin-group with --control none" },
	{ A(R, "--control", "none", "--admin-group", "netadm"), 64,
	  "--admin-group with --control none" },
	{ A(R, "--daemon=yes"), 64, NULL },
	{ A(R), 0, "log_time=0" },
	{ A(R, "--log-time", "--daemon"), 0, "log_time=1 daemon=1" },
	{ A(R), 0, "seccomp=1" },
	{ A(R, "--no-seccomp", "--user", "nobody"), 0,
	  "seccomp=0 user=nobody" },
	{ A(R, "--no-seccomp=yes"), 64, NULL },
	/* --zerocopy: large sends SENDMSG_ZC; not on a raw GRE socket. */
	{ A(R), 0, "zerocopy=0" },
	{ A(R, "--zerocopy"), 0, "zerocopy=1" },
	{ A(R, "--zerocopy", "--encap", "gre-udp"), 0, "zerocopy=1" },
	{ A(R, "--zerocopy", "--encap", "geneve"), 0, "zerocopy=1" },
	{ A(R, "--zerocopy=yes"), 64, NULL },
	{ A(R, "--zerocopy", "--encap", "gre"), 64,
	  "--zerocopy: a raw GRE socket cannot send zero-copy; use --encap "
	  "gre-udp" },
	{ A(C), 0, "zerocopy=1", .file = "remote 192.0.2.2\nzerocopy\n" },
	{ A(R, "--log-time=yes"), 64, NULL },

	/* Everything at once */
	{ A("--dev", "gt1", "--encap", "gre", "--local", "2001:db8::1", R6,
	    "--key", "9", "--csum", "--seq", "--mtu", "1400", "--address",
	    "10.9.0.1/30", "--ttl", "64", "--tos", "inherit", "--no-offload",
	    "-q", "--daemon", "--pidfile", "/run/g.pid"), 0,
	  "dev=gt1 encap=gre local=2001:db8::1 remote=2001:db8::2 port=0 "
	  "vni=0 key=9 csum=1 gre_csum=1 seq=1 mtu=1400 naddrs=1 "
	  "addr0=10.9.0.1/30 ttl=64 tos=inherit offload=0 verbosity=-1 "
	  "daemon=1 pidfile=/run/g.pid" },

	/* Not options, unknown options, missing arguments */
	{ A(R, "extra"), 64, "unexpected argument 'extra'" },
	{ A("extra", R), 64, "unexpected argument 'extra'" },
	{ A(R, "--", "--dev"), 64, "unexpected argument '--dev'" },
	{ A(R, "--bogus"), 64, NULL },
	{ A(R, "-x"), 64, NULL },
	{ A(R, "--vni"), 64, NULL },
	{ A(R, "--vni", "bad", "--help"), 64, "invalid --vni 'bad'" },

	/* --fdb [DEV=]: one tap's entry, or every tap's */
	{ A(R, "--vni", "2=ov2", "--fdb", "ov2=52:54:00:00:00:01=192.0.2.2",
	    "--fdb", "52:54:00:00:00:02@3=192.0.2.2", "--fdb",
	    "gsotun0=52:54:00:00:00:01=192.0.2.2"), 0,
	  "nfdb=3 fdb0=ov2=52:54:00:00:00:01@0=192.0.2.2 "
	  "fdb1=52:54:00:00:00:02@3=192.0.2.2 "
	  "fdb2=gsotun0=52:54:00:00:00:01@0=192.0.2.2" },
	{ A(R, "--vni", "2=ov2", "--fdb", "52:54:00:00:00:01=192.0.2.2",
	    "--fdb", "ov2=52:54:00:00:00:01=192.0.2.2"), 64,
	  "invalid --fdb 'ov2=52:54:00:00:00:01=192.0.2.2': that MAC and "
	  "VLAN have an entry already" },
	{ A(R, "--vni", "2=ov2", "--fdb", "ov2=52:54:00:00:00:01=192.0.2.2",
	    "--fdb", "ov2=52:54:00:00:00:01=192.0.2.2"), 64,
	  "have an entry already" },
	{ A(R, "--fdb", "nope=52:54:00:00:00:01=192.0.2.2"), 64,
	  "--fdb nope=...: no tap is named nope" },
	{ A(R, "--fdb", "=52:54:00:00:00:01=192.0.2.2"), 64,
	  "invalid --fdb '=52:54:00:00:00:01=192.0.2.2': not a device name" },
	{ A(R, "--fdb", "a/b=52:54:00:00:00:01=192.0.2.2"), 64,
	  "invalid --fdb 'a/b=" },

	/* --mode tun, --route [DEV=]PREFIX=ADDR, --strict-source */
	{ A(R), 0, "mode=tap strict_source=0 nroutes=0" },
	{ A(R, "--mode", "tap"), 0, "mode=tap" },
	{ A(R, "--mode", "tun", "--encap", "gre"), 0,
	  "mode=tun encap=gre nroutes=0 strict_source=0" },
	{ A(R, "--mode", "tun", "--encap", "gre-udp", "--mode", "tap"), 0,
	  "mode=tap encap=gre-udp" },
	{ A(R, "--mode", "tun", "--encap", "gre-udp", "--remote", "192.0.2.3",
	    "--route", "10.2.0.0/16=192.0.2.3", "--route",
	    "fd00:2::/48=192.0.2.3", "--route", "0.0.0.0/0=192.0.2.2",
	    "--route", "::/0=192.0.2.2", "--route", "10.2.3.4/32=192.0.2.2",
	    "--route", "fd00:2::1/128=192.0.2.2", "--strict-source"), 0,
	  "mode=tun strict_source=1 nroutes=6 route0=10.2.0.0/16=192.0.2.3 "
	  "route1=fd00:2::/48=192.0.2.3 route2=0.0.0.0/0=192.0.2.2 "
	  "route3=::/0=192.0.2.2 route4=10.2.3.4/32=192.0.2.2 "
	  "route5=fd00:2::1/128=192.0.2.2" },
	{ A(R6, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0/8=2001:db8::2"), 0,
	  "mode=tun route0=10.0.0.0/8=2001:db8::2" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--key", "7", "--key",
	    "8=tn8", "--route", "tn8=10.8.0.0/16=192.0.2.2", "--route",
	    "10.8.0.0/16=192.0.2.2"), 64,
	  "invalid --route '10.8.0.0/16=192.0.2.2': 10.8.0.0/16 has a route "
	  "already (to 192.0.2.2 in tn8)" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--key", "7", "--key",
	    "8=tn8", "--route", "tn8=10.8.0.0/16=192.0.2.2", "--route",
	    "gsotun0=10.8.0.0/16=192.0.2.2", "--route",
	    "10.8.0.0/17=192.0.2.2"), 0,
	  "nroutes=3 route0=tn8=10.8.0.0/16=192.0.2.2 "
	  "route1=gsotun0=10.8.0.0/16=192.0.2.2 route2=10.8.0.0/17=192.0.2.2" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0/8=192.0.2.2", "--route", "10.0.0.0/8=192.0.2.2"), 64,
	  "invalid --route '10.0.0.0/8=192.0.2.2': 10.0.0.0/8 has a route "
	  "already (to 192.0.2.2)" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.1/8=192.0.2.2"), 64,
	  "invalid --route '10.0.0.1/8=192.0.2.2': host bits set after the "
	  "prefix: the prefix is 10.0.0.0/8 (ip route refuses host bits too)" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "fd00::1/127=192.0.2.2"), 64,
	  "host bits set after the prefix: the prefix is fd00::/127" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "0.0.0.1/0=192.0.2.2"), 64, "the prefix is 0.0.0.0/0" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0/33=192.0.2.2"), 64,
	  "invalid --route '10.0.0.0/33=192.0.2.2': IPv4 prefix must be "
	  "0..32" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "fd00::/129=192.0.2.2"), 64, "IPv6 prefix must be 0..128" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route", "10.0.0.0/8"), 64,
	  "invalid --route '10.0.0.0/8': missing =ADDR" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0=192.0.2.2"), 64, "missing /PREFIX" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0/8=192.0.2.x"), 64,
	  "not an IPv4 or IPv6 address after '='" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.0.0.0/8=192.0.2.9"), 64,
	  "--route: 192.0.2.9 is not a --remote" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "tn9=10.0.0.0/8=192.0.2.2"), 64,
	  "--route tn9=...: no tap is named tn9" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "=10.0.0.0/8=192.0.2.2"), 64,
	  "invalid --route '=10.0.0.0/8=192.0.2.2': not a device name" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--strict-source"), 64,
	  "--strict-source without --route: every packet received would be "
	  "dropped" },
	{ A(R, "--mode", "tun"), 64,
	  "--encap vxlan carries Ethernet frames only, not the IP packets of "
	  "--mode tun: use --encap gre, gre-udp, vxlan-gpe or geneve" },
	{ A(R, "--mode", "tun", "--encap", "vxlan"), 64,
	  "--encap vxlan carries Ethernet frames only" },
	{ A(R, "--mode", "tin"), 64,
	  "invalid --mode 'tin': must be tap or tun" },
	{ A(R, "--mode", ""), 64, "invalid --mode '': must be tap or tun" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--fdb",
	    "52:54:00:00:00:01=192.0.2.2"), 64,
	  "--fdb is for --mode tap: a tun's IP packets carry no MACs (use "
	  "--route PREFIX=ADDR)" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--mac",
	    "02:00:00:00:00:01"), 64,
	  "--mac is for --mode tap: a tun has no Ethernet address" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--learning"), 64,
	  "--learning is for --mode tap: it learns source MACs, and a tun's IP "
	  "packets carry none" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--ageing", "300"), 64,
	  "--ageing is for --mode tap: it ages learnt MACs" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--max-address", "10"), 64,
	  "--max-address is for --mode tap: it bounds learnt MACs" },
	{ A(R, "--route", "10.0.0.0/8=192.0.2.2"), 64,
	  "--route is for --mode tun: a tap's frames go by MAC (use --fdb "
	  "MAC=ADDR)" },
	{ A(R, "--strict-source"), 64,
	  "--strict-source is for --mode tun: it checks the inner IP sources "
	  "by --route" },
	{ A(C, "--route", "10.3.0.0/16=192.0.2.2"), 0,
	  "mode=tun encap=gre-udp nroutes=2 route0=10.2.0.0/16=192.0.2.2 "
	  "route1=10.3.0.0/16=192.0.2.2 strict_source=1",
	  .file = "remote 192.0.2.2\nmode tun\nencap gre-udp\n"
		  "route 10.2.0.0/16=192.0.2.2\nstrict-source\n" },
	{ A(C), 64, ".conf:3: invalid --route '10.2.0.1/16=192.0.2.2': host "
	  "bits set",
	  .file = "remote 192.0.2.2\nmode tun\nroute 10.2.0.1/16=192.0.2.2\n"
		  "encap gre\n" },
	{ A(C), 64, "--encap vxlan carries Ethernet frames only",
	  .file = "remote 192.0.2.2\nmode tun\n" },

	/* --queues N|auto and --cpus LIST */
	{ A(R, "--queues", "2"), 0, "queues=2 cpus=-" },
	{ A(R, "--queues", "64"), 0, "queues=64" },
	{ A(R, "--queues", "0x40"), 0, "queues=64" },
	{ A(R, "--queues", "auto"), 0, "queues=0 cpus=-" },
	{ A(R, "--queues", "auto", "--queues", "3"), 0, "queues=3" },
	{ A(R, "--encap", "gre-udp", "--queues", "2"), 0,
	  "encap=gre-udp queues=2" },
	{ A(R, "--cpus", "5"), 0, "queues=1 cpus=5" },
	{ A(R, "--cpus", "0-1,3"), 0, "queues=1 cpus=0,1,3" },
	{ A(R, "--queues", "2", "--cpus", "3,0-1"), 0, "queues=2 cpus=3,0,1" },
	{ A(R, "--cpus", "0-1,3", "--queues", "auto"), 0,
	  "queues=3 cpus=0,1,3" },
	{ A(R, "--queues", "2", "--cpus", "7", "--cpus", "1-2"), 0,
	  "queues=2 cpus=1,2" },
	{ A(R, "--cpus", "960-1023"), 0, "queues=1 ncpus=64" },
	/* auto where one queue is all there can be: the set-up says so */
	{ A(R, "--encap", "gre", "--queues", "auto"), 0, "queues=0" },
	{ A(R, "--encap", "gre", "--queues", "auto", "--cpus", "2-3"), 0,
	  "queues=0 cpus=2,3" },
	{ A(R, "--encap", "gre-udp", "--seq", "--queues", "auto", "--cpus",
	    "2-3"), 0, "seq=1 queues=0 cpus=2,3" },
	{ A(R, "--encap", "gre", "--cpus", "2"), 0, "queues=1 cpus=2" },
	{ A(R, "--queues", "0"), 64,
	  "invalid --queues '0': must be 1..64 or auto" },
	{ A(R, "--queues", "65"), 64,
	  "invalid --queues '65': must be 1..64 or auto" },
	{ A(R, "--queues", "Auto"), 64, "invalid --queues 'Auto'" },
	{ A(R, "--queues", "-1"), 64, "invalid --queues '-1'" },
	{ A(R, "--queues", ""), 64, "invalid --queues ''" },
	{ A(R, "--queues"), 64, NULL },
	{ A(R, "--encap", "gre", "--queues", "2"), 64,
	  "--queues 2: raw GRE has one socket and one queue; use --encap "
	  "gre-udp for queues" },
	{ A(R, "--encap", "gre-udp", "--seq", "--queues", "2"), 64,
	  "--queues 2 with --seq: one sequence counter cannot stay in order "
	  "across queues; leave out --seq for queues" },
	{ A(R, "--queues", "4", "--cpus", "0-1"), 64,
	  "--cpus lists 2 CPUs for --queues 4: list one for each queue" },
	{ A(R, "--cpus", "3", "--queues", "2"), 64,
	  "--cpus lists 1 CPU for --queues 2" },
	{ A(R, "--cpus", "5-3"), 64,
	  "invalid --cpus '5-3': 5-3 is not a range" },
	{ A(R, "--cpus", "0-3,2"), 64, "invalid --cpus '0-3,2': CPU 2 twice" },
	{ A(R, "--cpus", ""), 64, "invalid --cpus '': an empty list" },
	{ A(R, "--cpus", "0,,1"), 64, "invalid --cpus '0,,1': an empty item" },
	{ A(R, "--cpus", "x"), 64,
	  "invalid --cpus 'x': 'x' is not a CPU nor a range" },
	{ A(R, "--cpus", "1024"), 64,
	  "invalid --cpus '1024': CPU 1024 is out of range (0..1023)" },
	{ A(R, "--cpus", "0-64"), 64,
	  "invalid --cpus '0-64': more than 64 CPUs" },
	{ A(R, "--cpus"), 64, NULL },
	{ A(C), 0, "queues=2 cpus=6,7",
	  .file = "remote 192.0.2.2\nqueues 2\ncpus 6-7\n" },
	{ A(C, "--queues", "auto"), 0, "queues=3 cpus=0,2,4",
	  .file = "remote 192.0.2.2\nqueues 2\ncpus 0,2,4\n" },
	{ A(C), 64, ".conf:2: invalid --cpus '1,1': CPU 1 twice",
	  .file = "remote 192.0.2.2\ncpus 1,1\n" },

	/*
	 * --config FILE: a long option a line, the command line's after;
	 * the lists add up, the rest is overridden.
	 */
	{ A(C), 0, DEFAULTS, .file = "remote 192.0.2.2\n" },
	{ A(C), 0, "learning=1 vni=42 remote=192.0.2.2 nremotes=1",
	  .file = "# a comment\n\n  remote\t192.0.2.2   # the peer\r\n"
		  "learning\n\tvni 42\n#vni 43\n" },
	{ A("--conf=@CONF"), 0, "dev=a", .file = "remote 192.0.2.2\ndev a" },
	{ A("--config", "/nonexistent", C), 0, "dev=a",
	  .file = "remote 192.0.2.2\ndev a\n" },
	{ A(C, "--dev", "b", "--mtu", "auto", "--remote", "192.0.2.3",
	    "--address", "10.1.0.1/24", "--port", "4790"), 0,
	  "dev=b mtu=auto port=4790 nremotes=2 remote=192.0.2.2 "
	  "remote1=192.0.2.3 naddrs=2 addr0=10.0.0.1/24 addr1=10.1.0.1/24 "
	  "learning=1",
	  .file = "remote 192.0.2.2\ndev a\nmtu 1400\nport 5000\n"
		  "address 10.0.0.1/24\nlearning\n" },
	{ A("--dev", "b", C), 0, "dev=b",
	  .file = "remote 192.0.2.2\ndev a\n" },
	{ A(C, "--remote", "192.0.2.2"), 64,
	  "invalid --remote '192.0.2.2': that peer is given already",
	  .file = "remote 192.0.2.2\n" },
	{ A(C, "--vni", "3=ov3", "--fdb", "ov2=52:54:00:00:00:02=192.0.2.2",
	    "--mac", "ov3=02:00:00:00:00:03"), 0,
	  "ntaps=2 tap0=2=ov2 tap1=3=ov3 nfdb=2 "
	  "fdb0=52:54:00:00:00:01@0=192.0.2.2 "
	  "fdb1=ov2=52:54:00:00:00:02@0=192.0.2.2 mac1=- "
	  "mac2=02:00:00:00:00:03",
	  .file = "remote 192.0.2.2\nvni 2=ov2\n"
		  "fdb 52:54:00:00:00:01=192.0.2.2\n" },
	{ A(C), 0, "pidfile=/run/a#b user=a verbosity=1 tos=inherit",
	  .file = "remote 192.0.2.2\npidfile /run/a#b\nuser a #b\n"
		  "verbose\nverbose\nquiet\ntos inherit\n" },
	{ A(C, "--check"), 0, "check=1 remote=192.0.2.2",
	  .file = "remote 192.0.2.2\n" },
	{ A(C), 0, "check=0 nremotes=2", .file = "remote 192.0.2.2\n"
						   "remote 192.0.2.3\n" },
	{ A(C), 64, ".conf:2: invalid --remote '192.0.2.300': not an",
	  .file = "remote 192.0.2.2\nremote 192.0.2.300\n" },
	{ A(C), 64, ".conf:1: invalid --remote '192.0.2.2 192.0.2.3'",
	  .file = "remote 192.0.2.2 192.0.2.3\n" },
	{ A(C, "--remote", "192.0.2.300"), 64,
	  "gsotun: invalid --remote '192.0.2.300'",
	  .file = "remote 192.0.2.2\n" },
	{ A(C), 64, ".conf:3: unknown option 'remte' (did you mean remote?)",
	  .file = "# x\n\nremte 192.0.2.2\n" },
	{ A(C), 64, ".conf:1: unknown option '--remote' (did you mean "
	  "remote?)", .file = "--remote 192.0.2.2\n" },
	{ A(C), 64, ".conf:1: unknown option 'help'", .file = "help\n" },
	{ A(C), 64, ".conf:1: remote needs a value (remote ADDR)",
	  .file = "remote   # none\n" },
	{ A(C), 64, ".conf:2: learning takes no value",
	  .file = "remote 192.0.2.2\nlearning yes\n" },
	{ A(C), 0, "evpn=1 evpn_port=5000 local=198.18.0.3",
	  .file = "local 198.18.0.3\nevpn\nevpn-port 5000\n" },
	{ A(C, "--evpn-port", "6000"), 0, "evpn=1 evpn_port=6000",
	  .file = "local 198.18.0.3\nevpn\nevpn-port 5000\n" },
	{ A(C), 64, ".conf:2: evpn takes no value",
	  .file = "local 198.18.0.3\nevpn yes\n" },
	{ A(C), 64, ".conf:3: evpn-port needs a value (evpn-port N)",
	  .file = "local 198.18.0.3\nevpn\nevpn-port\n" },
	{ A(C), 64, ".conf:3: invalid --evpn-port '0': must be 1..65535",
	  .file = "local 198.18.0.3\nevpn\nevpn-port 0\n" },
	{ A(C), 64, ".conf:2: --learning with --evpn",
	  .file = "local 198.18.0.3\nlearning\nevpn\n" },
	{ A(C), 64, ".conf:1: config is for the command line only",
	  .file = "config /etc/gsotun/x.conf\n" },
	{ A(C), 64, ".conf:1: check is for the command line only",
	  .file = "check\n" },
	{ A(C), 64, ".conf:2: an environment file (GSOTUN_OPTS=...)",
	  .file = "# old\nGSOTUN_OPTS=\"--remote 192.0.2.2\"\n" },
	{ A(C), 64, ".conf:2: a control character",
	  .file = "remote 192.0.2.2\nlearning\001\n" },
	{ A(C), 64, ".conf:2: --chroot needs --user",
	  .file = "remote 192.0.2.2\nchroot /var/empty\n" },
	/* Errors between two options: the line of the one they are of. */
	{ A(C), 64, ".conf:2: --queues 2: raw GRE has one socket",
	  .file = "remote 192.0.2.2\nqueues 2\nencap gre\n" },
	{ A(C), 64, ".conf:3: --learning is for --mode tap",
	  .file = "remote 192.0.2.2\nmode tun\nlearning\nencap gre\n" },
	{ A(C), 64, ".conf:3: two taps with one --vni",
	  .file = "remote 192.0.2.2\nvni 2=a\nvni 2=b\n" },
	{ A(C, "--queues", "2"), 64,
	  "gsotun: --queues 2: raw GRE has one socket",
	  .file = "remote 192.0.2.2\nencap gre\n" },
	{ A(C), 64, "missing --remote", .file = "" },
	{ A(C), 64, ".conf:3: invalid --fdb '52:54:00:00:00:01=192.0.2.2': "
	  "that MAC",
	  .file = "remote 192.0.2.2\nfdb ov9=52:54:00:00:00:01=192.0.2.2\n"
		  "fdb 52:54:00:00:00:01=192.0.2.2\n" },
	{ A(R, "--config", "/nonexistent/x.conf"), 64,
	  "cannot read --config '/nonexistent/x.conf': cannot open it: No "
	  "such file" },
	{ A(R, "--config", "/dev/null"), 64,
	  "cannot read --config '/dev/null': not a regular file" },
	{ A(R, "--config", ""), 64, "cannot read --config ''" },
	{ A(R, "--address", "--config"), 64, "invalid --address '--config'" },
	{ A(R, "--config"), 64, NULL },

	/* argp's own: exit 0, even without --remote */
	{ A("--help"), 0, NULL,
	  "Tunnel: Encapsulation: Device: Process: --remote=ADDR "
	  "--local=ADDR --port=N --source-ports=N --ttl=N --tos=N|inherit "
	  "--encap=TYPE --vni=N --key=N --csum --no-csum --seq --dev=NAME "
	  "--mtu=N|auto --queues=N|auto --cpus=LIST "
	  "--address=[DEV=]CIDR --no-offload --no-gro --udp-gro=auto|on|off "
	  "--verbose --quiet --log-time --daemon "
	  "--pidfile=FILE --version Examples:" },
	{ A("-?"), 0, NULL, "Tunnel:" },
	/* -h as --help, though the list shows argp's -? only */
	{ A("-h"), 0, NULL, "Tunnel: --remote=ADDR Examples:" },
	{ A(R, "-vh"), 0, NULL, "Tunnel:" },
	{ A("--usage"), 0, NULL, "--remote=ADDR" },
	{ A("--version"), 0, NULL, PACKAGE_VERSION },
	{ A("-V", R), 0, NULL, PACKAGE_NAME },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static char test_cwd[4096];

static const char *test_encap_name(enum encap_type t)
{
	switch (t) {
	case ENCAP_VXLAN:
		return "vxlan";
	case ENCAP_GRE:
		return "gre";
	case ENCAP_GRE_UDP:
		return "gre-udp";
	case ENCAP_VXLAN_GPE:
		return "vxlan-gpe";
	case ENCAP_GENEVE:
		return "geneve";
	}
	return "?";
}

static void test_put_ip(FILE *f, const char *key, int family,
			const void *addr)
{
	char buf[INET6_ADDRSTRLEN];

	if (!family)
		fprintf(f, " %s=-", key);
	else if (!inet_ntop(family, addr, buf, sizeof(buf)))
		fprintf(f, " %s=?", key);
	else
		fprintf(f, " %s=%s", key, buf);
}

/*
 * The config as " key=value ... " text (leading and trailing blank, so a
 * field is found as " key=value "). A pid file under the current
 * directory is shown as $CWD/...
 */
static char *test_render(const struct config *c)
{
	size_t size, cwd_len = strlen(test_cwd);
	char *text, key[24];
	FILE *f = open_memstream(&text, &size);
	unsigned int i;

	if (!f)
		return NULL;
	fprintf(f, " dev=%.*s encap=%s", IFNAMSIZ, c->dev,
		test_encap_name(c->encap.type));
	test_put_ip(f, "local", c->local.family, &c->local.addr);
	test_put_ip(f, "remote", c->n_remotes ? c->remotes[0].family : 0,
		    c->n_remotes ? &c->remotes[0].addr : NULL);
	fprintf(f, " nremotes=%u family=%s", c->n_remotes,
		c->family == AF_INET6 ? "6" : c->family == AF_INET ? "4" : "-");
	for (i = 1; i < c->n_remotes; i++) {
		snprintf(key, sizeof(key), "remote%u", i);
		test_put_ip(f, key, c->remotes[i].family, &c->remotes[i].addr);
	}
	fprintf(f, " nfdb=%u", c->n_fdb);
	for (i = 0; i < c->n_fdb; i++) {
		const uint8_t *m = c->fdb[i].mac;
		char ip[INET6_ADDRSTRLEN];

		inet_ntop(c->fdb[i].peer.family, &c->fdb[i].peer.addr, ip,
			  sizeof(ip));
		fprintf(f, " fdb%u=%s%s%02x:%02x:%02x:%02x:%02x:%02x@%u=%s", i,
			c->fdb[i].dev, c->fdb[i].dev[0] ? "=" : "", m[0], m[1],
			m[2], m[3], m[4], m[5], c->fdb[i].vlan, ip);
	}
	fprintf(f, " learning=%d ageing=%u max_address=%u", c->learning,
		c->ageing, c->max_address);
	fprintf(f, " evpn=%d evpn_port=%u evpn_vteps=%u", c->evpn,
		c->evpn_port, c->evpn_vteps);
	fprintf(f, " mode=%s strict_source=%d nroutes=%u",
		c->encap.l3 ? "tun" : "tap", c->strict_source, c->n_routes);
	for (i = 0; i < c->n_routes; i++) {
		const struct config_route *r = &c->routes[i];
		char net[INET6_ADDRSTRLEN], ip[INET6_ADDRSTRLEN];

		inet_ntop(r->prefix.family, &r->prefix.addr, net, sizeof(net));
		inet_ntop(r->peer.family, &r->peer.addr, ip, sizeof(ip));
		fprintf(f, " route%u=%s%s%s/%u=%s", i, r->dev,
			r->dev[0] ? "=" : "", net, r->prefix.prefix, ip);
	}
	fprintf(f, " ntaps=%u", c->n_taps);
	for (i = 0; i < c->n_taps; i++)
		fprintf(f, " tap%u=%u=%s", i, c->taps[i].id, c->taps[i].dev);
	for (i = 0; i <= c->n_taps && i < CONFIG_MAX_TUNNELS; i++) {
		const uint8_t *m = cfg_tap_mac(c, i);

		if (m)
			fprintf(f, " mac%u=%02x:%02x:%02x:%02x:%02x:%02x", i,
				m[0], m[1], m[2], m[3], m[4], m[5]);
		else
			fprintf(f, " mac%u=-", i);
	}
	for (i = 0; i < c->n_addrs && i < CONFIG_MAX_ADDRS; i++)
		fprintf(f, " addrtap%u=%u", i, c->addr_tap[i]);
	fprintf(f, " port=%u src_ports=%u vni=%u", c->port, c->src_ports,
		c->encap.vni);
	if (c->encap.has_key)
		fprintf(f, " key=%u", c->encap.key);
	else
		fprintf(f, " key=-");
	fprintf(f, " csum=%d gre_csum=%d seq=%d", c->csum, c->encap.gre_csum,
		c->encap.gre_seq);
	fprintf(f, " gopts=%s", c->encap.geneve_opts_len ? "" : "-");
	for (i = 0; i < c->encap.geneve_opts_len; i++)
		fprintf(f, "%02x", c->encap.geneve_opts[i]);
	fprintf(f, " gcrit=%d", c->encap.geneve_crit);
	fprintf(f, " echo=%u room=%u", c->geneve_echo, c->encap.tlv_room);
	if (c->mtu)
		fprintf(f, " mtu=%u", c->mtu);
	else
		fprintf(f, " mtu=auto");
	fprintf(f, " naddrs=%u", c->n_addrs);
	for (i = 0; i < c->n_addrs && i < CONFIG_MAX_ADDRS; i++) {
		snprintf(key, sizeof(key), "addr%u", i);
		test_put_ip(f, key, c->addrs[i].family, &c->addrs[i].addr);
		fprintf(f, "/%u", c->addrs[i].prefix);
	}
	fprintf(f, " ttl=%d", c->ttl);
	if (c->tos_mode == TOS_INHERIT)
		fprintf(f, " tos=inherit");
	else
		fprintf(f, " tos=%u", c->tos);
	fprintf(f, " nallow=%u", c->n_allow);
	for (i = 0; i < c->n_allow && i < CONFIG_MAX_ALLOW; i++) {
		snprintf(key, sizeof(key), "allow%u", i);
		test_put_ip(f, key, c->allow[i].family, &c->allow[i].addr);
		fprintf(f, "/%u", c->allow[i].prefix);
	}
	fprintf(f, " user=%s chroot=%s", c->user ? c->user : "-",
		c->chroot ? c->chroot : "-");
	fprintf(f, " gro=%d udp_gro=%s", c->gro,
		c->udp_gro == UDP_GRO_ON ? "on" :
		c->udp_gro == UDP_GRO_OFF ? "off" : "auto");
	fprintf(f, " zerocopy=%d", c->zerocopy);
	fprintf(f, " df=%s pmtud=%d",
		c->df == DF_SET ? "set" : c->df == DF_INHERIT ? "inherit" :
		"unset", c->pmtud);
	fprintf(f, " offload=%d verbosity=%d daemon=%d log_time=%d seccomp=%d",
		c->offload, c->verbosity, c->daemon, c->log_time, c->seccomp);
	if (!c->pidfile)
		fprintf(f, " pidfile=-");
	else if (cwd_len && !strncmp(c->pidfile, test_cwd, cwd_len) &&
		 c->pidfile[cwd_len] == '/')
		fprintf(f, " pidfile=$CWD%s", c->pidfile + cwd_len);
	else
		fprintf(f, " pidfile=%s", c->pidfile);
	if (c->control)
		fprintf(f, " control=%s", c->control);
	fprintf(f, " admin_group=%s", c->admin_group ? c->admin_group : "-");
	fprintf(f, " queues=%u ncpus=%u cpus", c->queues, c->n_cpus);
	for (i = 0; i < c->n_cpus && i < CONFIG_MAX_QUEUES; i++)
		fprintf(f, "%c%u", i ? ',' : '=', c->cpus[i]);
	if (!c->n_cpus)
		fprintf(f, "=-");
	fprintf(f, " check=%d", c->check);
	fputc(' ', f);
	fclose(f);
	return text;
}

static int test_write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Where a row's file is written, for "@CONF" in its args. */
static char test_conf[4096 + 16];

/* arg, with "@CONF" replaced by test_conf (owned by the caller). */
static char *test_arg(const char *arg)
{
	const char *at = strstr(arg, "@CONF");
	char *s;

	if (!at)
		return strdup(arg);
	if (asprintf(&s, "%.*s%s%s", (int)(at - arg), arg, test_conf,
		     at + 5) < 0)
		return NULL;
	return s;
}

/*
 * c written out and read back alone, as a --config: the render of what
 * that makes, owned by the caller; NULL when it does not parse (what
 * was written is on stderr then).
 */
static char *test_round_trip(const struct config *c)
{
	char *text = NULL, *again = NULL, *argv[] = { "gsotun", NULL };
	size_t size;
	struct config cfg2;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	conffile_write(f, c);
	fclose(f);
	f = fmemopen(text, size, "r");
	if (f && !options_parse_file(1, argv, f, "written", true, &cfg2))
		again = test_render(&cfg2);
	if (!again)
		fprintf(stderr, "written:\n%s", text);
	if (f) {
		fclose(f);
		cfg_free(&cfg2);
	}
	free(text);
	return again;
}

/*
 * In the child: parse, and send the rendered config down fd, with
 * " roundtrip=1 " when test_round_trip() gives it again.
 */
static void __attribute__((noreturn))
test_child(const struct row *r, int out, int err, int cfg_fd)
{
	char *argv[64];
	struct config cfg;
	char *text, *again;
	int argc = 0;
	bool same, check;

	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	argv[argc++] = strdup("gsotun");
	for (; r->args[argc - 1] && argc < 63; argc++)
		argv[argc] = test_arg(r->args[argc - 1]);
	argv[argc] = NULL;

	options_parse(argc, argv, &cfg);
	/* --check is the command line's alone: it is never written. */
	check = cfg.check;
	cfg.check = false;
	text = test_render(&cfg);
	again = text ? test_round_trip(&cfg) : NULL;
	same = again && !strcmp(text, again);
	cfg.check = check;
	free(text);
	text = test_render(&cfg);
	if (again && !same)
		fprintf(stderr, "read back:%s\n", again);
	if (!text || test_write_all(cfg_fd, text, strlen(text)) ||
	    test_write_all(cfg_fd, same ? "roundtrip=1 " : "roundtrip=0 ",
			   12))
		exit(99);
	free(text);
	free(again);
	cfg_free(&cfg);
	while (argc--)
		free(argv[argc]);
	/* exit(), not _exit(): LeakSanitizer checks the successful path. */
	exit(0);
}

/* Read fd to its end into a string (owned by the caller). */
static char *test_slurp(int fd)
{
	size_t size, cap = 4096;
	char *buf = malloc(cap), *p;
	ssize_t n;

	if (!buf)
		return NULL;
	size = 0;
	for (;;) {
		if (size + 1 == cap) {
			p = realloc(buf, cap * 2);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		n = read(fd, buf + size, cap - size - 1);
		if (n <= 0)
			break;
		size += n;
	}
	buf[size] = '\0';
	close(fd);
	return buf;
}

struct result {
	int status;	/* exit status, or 128 + signal */
	char *out, *err, *cfg;
};

/* text as the file test_conf. */
static int test_write_file(const char *text)
{
	FILE *f = fopen(test_conf, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int test_run(const struct row *r, struct result *res)
{
	int out[2], err[2], cfg[2], ws;
	pid_t pid;

	if (r->file && test_write_file(r->file))
		return -1;
	if (pipe(out) || pipe(err) || pipe(cfg))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(out[0]);
		close(err[0]);
		close(cfg[0]);
		test_child(r, out[1], err[1], cfg[1]);
	}
	close(out[1]);
	close(err[1]);
	close(cfg[1]);
	/* Little output (under a pipe's capacity): no need to poll. */
	res->cfg = test_slurp(cfg[0]);
	res->out = test_slurp(out[0]);
	res->err = test_slurp(err[0]);
	if (waitpid(pid, &ws, 0) != pid)
		return -1;
	res->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

/* argv as one line, for the test names. */
static void test_name(const struct row *r, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; r->args[i] && len < size; i++)
		len += snprintf(buf + len, size - len, "%s'%s'", i ? " " : "",
				r->args[i]);
	if (!i)
		snprintf(buf, size, "(no arguments)");
}

/* Every space-separated word of want is in text (as " word " when padded). */
static const char *test_missing(const char *text, const char *want,
				bool padded, char *word, size_t size)
{
	const char *p = want, *end;
	size_t len;

	while (*p) {
		end = strchr(p, ' ');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len && len + 3 <= size) {
			snprintf(word, size, "%s%.*s%s", padded ? " " : "",
				 (int)len, p, padded ? " " : "");
			if (!strstr(text, word))
				return word;
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	return NULL;
}

static void test_check(const struct row *r, const char *name,
		       const struct result *res)
{
	char word[256];
	const char *miss;

	if (!is_int(res->status, r->status, "exit status of %s", name))
		printf("#   stderr: %s", res->err);
	if (r->want && r->status == 0) {
		miss = test_missing(res->cfg, r->want, true, word,
				    sizeof(word));
		if (!ok(!miss, "fields of %s", name))
			printf("#   want '%s'\n#   got  '%s'\n", miss,
			       res->cfg);
		if (!ok(strstr(res->cfg, " roundtrip=1 ") != NULL,
			"written out and read back, %s is the same", name))
			printf("#   %s\n#   stderr: %s", res->cfg, res->err);
	} else if (r->want) {
		if (!ok(strstr(res->err, r->want) != NULL,
			"message of %s", name))
			printf("#   want '%s'\n#   got  '%s'\n", r->want,
			       res->err);
	}
	if (r->out) {
		miss = test_missing(res->out, r->out, false, word,
				    sizeof(word));
		if (!ok(!miss, "output of %s", name))
			printf("#   missing '%s'\n", miss);
	}
}

/* ---- optvalue_cidr_contains() --------------------------------------- */

struct cidr_row {
	const char *name;
	const char *net;	/* the prefix as written, host bits and all */
	uint8_t prefix;
	const char *addr;
	bool want;
};

static const struct cidr_row cidr_rows[] = {
	{ "/0 holds any IPv4 address", "0.0.0.0", 0, "203.0.113.7", true },
	{ "/0 holds any IPv6 address", "::", 0, "2001:db8::1", true },
	{ "/1: the first bit decides, in", "0.0.0.0", 1, "127.255.255.255",
	  true },
	{ "/1: the first bit decides, out", "0.0.0.0", 1, "128.0.0.0", false },
	{ "/32 holds its own address", "192.0.2.1", 32, "192.0.2.1", true },
	{ "/32: the last bit differs", "192.0.2.1", 32, "192.0.2.0", false },
	{ "/32: the first bit differs", "192.0.2.1", 32, "64.0.2.1", false },
	{ "/128 holds its own address", "2001:db8::1", 128, "2001:db8::1",
	  true },
	{ "/128: the last bit differs", "2001:db8::1", 128, "2001:db8::",
	  false },
	{ "/128: the first bit differs", "2001:db8::1", 128, "a001:db8::1",
	  false },
	{ "/24: the last byte is free", "192.0.2.0", 24, "192.0.2.255",
	  true },
	{ "/24: the third byte's last bit differs", "192.0.2.0", 24,
	  "192.0.3.0", false },
	{ "/25: .127 is the last in", "192.0.2.0", 25, "192.0.2.127", true },
	{ "/25: .128 is out (bit 25)", "192.0.2.0", 25, "192.0.2.128", false },
	{ "/25: the upper half holds .128", "192.0.2.128", 25, "192.0.2.128",
	  true },
	{ "/25: the upper half not .127", "192.0.2.128", 25, "192.0.2.127",
	  false },
	{ "/25: host bits written in the prefix are ignored", "192.0.2.200",
	  25, "192.0.2.129", true },
	{ "/31: .2 and .3 in", "192.0.2.2", 31, "192.0.2.3", true },
	{ "/31: .1 out (bit 31)", "192.0.2.2", 31, "192.0.2.1", false },
	{ "/64: the interface identifier is free", "2001:db8:1:2::", 64,
	  "2001:db8:1:2:ffff:ffff:ffff:ffff", true },
	{ "/64: bit 64 differs", "2001:db8:1:2::", 64, "2001:db8:1:3::",
	  false },
	{ "/65: bit 66 on is free", "2001:db8:1:2::", 65,
	  "2001:db8:1:2:7fff:ffff:ffff:ffff", true },
	{ "/65: bit 65 differs", "2001:db8:1:2::", 65, "2001:db8:1:2:8000::",
	  false },
	{ "/65: the upper half holds bit 65 set", "2001:db8:1:2:8000::", 65,
	  "2001:db8:1:2:ffff::1", true },
};

#define N_CIDR (sizeof(cidr_rows) / sizeof(cidr_rows[0]))

static void test_cidr(void)
{
	uint8_t addr[16];
	struct cidr c;
	size_t i;

	for (i = 0; i < N_CIDR; i++) {
		const struct cidr_row *r = &cidr_rows[i];
		int family = strchr(r->net, ':') ? AF_INET6 : AF_INET;

		memset(&c, 0, sizeof(c));
		c.family = family;
		c.prefix = r->prefix;
		if (inet_pton(family, r->net, &c.addr) != 1 ||
		    inet_pton(family, r->addr, addr) != 1) {
			ok(0, "cidr %s: addresses parse", r->name);
			continue;
		}
		is_int(optvalue_cidr_contains(&c, addr), r->want,
		       "cidr: %s (%s/%u, %s)", r->name, r->net, r->prefix,
		       r->addr);
	}
}

/* ---- optvalue_cpus_parse() ------------------------------------------ */

struct cpus_row {
	const char *name;
	const char *list;
	unsigned int max;
	int rc;
	const char *want;	/* the CPUs, a comma between; or the reason */
};

static const struct cpus_row cpus_rows[] = {
	{ "one CPU", "0", 64, 0, "0" },
	{ "the kernel's form of an online list", "0-3,8,10-11", 64, 0,
	  "0,1,2,3,8,10,11" },
	{ "the order given, which is the queues'", "7,3,0-1", 64, 0,
	  "7,3,0,1" },
	{ "a range of one", "2-2", 64, 0, "2" },
	{ "the last CPU a set holds", "1023", 64, 0, "1023" },
	{ "leading zeros, as the kernel takes them", "007", 64, 0, "7" },
	{ "as many as max", "0-3", 4, 0, "0,1,2,3" },
	{ "one more than max", "0-4", 4, -E2BIG, "more than 4 CPUs" },
	{ "an empty list", "", 64, -EINVAL, "an empty list" },
	{ "a comma alone", ",", 64, -EINVAL, "an empty item" },
	{ "a comma at the end", "0,", 64, -EINVAL, "an empty item" },
	{ "a comma at the start", ",0", 64, -EINVAL, "an empty item" },
	{ "two commas", "0,,1", 64, -EINVAL, "an empty item" },
	{ "a word", "all", 64, -EINVAL, "'all' is not a CPU nor a range" },
	{ "a range without its end", "1-", 64, -EINVAL,
	  "'1-' is not a CPU nor a range" },
	{ "a range without its start", "-1", 64, -EINVAL,
	  "'-1' is not a CPU nor a range" },
	{ "three ends", "1-2-3", 64, -EINVAL,
	  "'1-2-3' is not a CPU nor a range" },
	{ "a stride (bitmap_parselist()'s, not taken)", "0-7:2", 64, -EINVAL,
	  "'0-7:2' is not a CPU nor a range" },
	{ "hex", "0x1", 64, -EINVAL, "'0x1' is not a CPU nor a range" },
	{ "a blank", "0, 1", 64, -EINVAL, "' 1' is not a CPU nor a range" },
	{ "a sign", "+1", 64, -EINVAL, "'+1' is not a CPU nor a range" },
	{ "an item too long to be a CPU", "0000000000000001", 64, -EINVAL,
	  "'000000000000000...' is not a CPU nor a range" },
	{ "a range upside down", "5-3", 64, -EINVAL, "5-3 is not a range" },
	{ "a CPU past the last", "1024", 64, -EINVAL,
	  "CPU 1024 is out of range (0..1023)" },
	{ "a range past the last", "1000-1024", 64, -EINVAL,
	  "CPU 1024 is out of range" },
	{ "a CPU twice", "1,2,2", 64, -EINVAL, "CPU 2 twice" },
	{ "a CPU of a range again", "0-3,2", 64, -EINVAL, "CPU 2 twice" },
	{ "two ranges that overlap", "0-3,3-5", 64, -EINVAL, "CPU 3 twice" },
};

#define N_CPUS (sizeof(cpus_rows) / sizeof(cpus_rows[0]))

static void test_cpus(void)
{
	uint16_t cpus[64];		/* the rows' max at most */
	char why[80], got[512];
	unsigned int n, i, len;
	size_t k;
	int rc;

	for (k = 0; k < N_CPUS; k++) {
		const struct cpus_row *r = &cpus_rows[k];

		why[0] = '\0';
		rc = optvalue_cpus_parse(r->list, cpus, r->max, &n, why,
					 sizeof(why));
		for (len = i = 0; !rc && i < n && len < sizeof(got); i++)
			len += snprintf(got + len, sizeof(got) - len, "%s%u",
					i ? "," : "", cpus[i]);
		if (rc)
			snprintf(got, sizeof(got), "%s (n %u)", why, n);
		if (!ok(rc == r->rc && (rc ? strstr(got, r->want) && !n
					   : !strcmp(got, r->want)),
			"cpus: %s ('%s')", r->name, r->list))
			printf("#   want %d '%s'\n#   got  %d '%s'\n", r->rc,
			       r->want, rc, got);
	}
}

/*
 * A peers file read again (peersfile_load()) over a config the
 * command line args made: want is the fields after it (rc 0) or a text
 * of the reason (rc < 0), and then the config must be as it was.
 */
struct reload {
	const char *const *args;
	const char *file;
	int rc;
	const char *want;
};

static const struct reload reloads[] = {
	{ A(R), "remote 192.0.2.3\n# a comment\n\n  remote\t192.0.2.4  # x\n"
	  "fdb 52:54:00:00:00:03=192.0.2.3\n", 0,
	  "nremotes=3 remote=192.0.2.2 remote1=192.0.2.3 remote2=192.0.2.4 "
	  "nfdb=1 fdb0=52:54:00:00:00:03@0=192.0.2.3" },
	{ A(R, "--fdb", "52:54:00:00:00:02=192.0.2.2"),
	  "fdb 52:54:00:00:00:02@7=192.0.2.2\n", 0,
	  "nremotes=1 nfdb=2 fdb0=52:54:00:00:00:02@0=192.0.2.2 "
	  "fdb1=52:54:00:00:00:02@7=192.0.2.2" },
	{ A(R), "", 0, "nremotes=1 nfdb=0" },
	{ A(R, "--vni", "2=ov2"), "fdb ov2=52:54:00:00:00:03=192.0.2.2\n", 0,
	  "nfdb=1 fdb0=ov2=52:54:00:00:00:03@0=192.0.2.2" },
	{ A(R, "--vni", "2=ov2"), "fdb ov3=52:54:00:00:00:03=192.0.2.2\n",
	  -EINVAL, "--fdb ov3=...: no tap is named ov3" },
	{ A(R, "--fdb", "ov2=52:54:00:00:00:03=192.0.2.2", "--vni", "2=ov2"),
	  "fdb 52:54:00:00:00:03=192.0.2.2\n", -EINVAL,
	  "line 1: invalid fdb '52:54:00:00:00:03=192.0.2.2': that MAC and "
	  "VLAN have an entry already" },
	{ A(R), "remote 2001:db8::3\n", -EINVAL, "every --remote must be" },
	{ A(R), "remote 192.0.2.2\n", -EINVAL,
	  "line 1: invalid remote '192.0.2.2': that peer is given already" },
	{ A(R), "remote 192.0.2.3\nremote 192.0.2.3\n", -EINVAL,
	  "line 2: invalid remote '192.0.2.3': that peer is given already" },
	{ A(R), "fdb 52:54:00:00:00:03=192.0.2.9\n", -EINVAL,
	  "--fdb: 192.0.2.9 is not a --remote" },
	{ A(R), "\n\nremote\n", -EINVAL,
	  "line 3: remote needs a value (remote ADDR)" },
	{ A(R), "remote #192.0.2.3\n", -EINVAL,
	  "line 1: remote needs a value (remote ADDR)" },
	/* The rest of the line is the value, as in a configuration file. */
	{ A(R), "remote 192.0.2.3 192.0.2.4\n", -EINVAL,
	  "line 1: invalid remote '192.0.2.3 192.0.2.4': not an IPv4" },
	{ A(R), "fdb 52:54:00:00:00:03 192.0.2.2\n", -EINVAL,
	  "line 1: invalid fdb '52:54:00:00:00:03 192.0.2.2': missing =ADDR" },
	{ A(R), "\t remote \t 192.0.2.3 \t# c\n", 0,
	  "nremotes=2 remote=192.0.2.2 remote1=192.0.2.3" },
	/* route lines: a tun's; fdb lines: a tap's */
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.1.0.0/16=192.0.2.2"),
	  "remote 192.0.2.3\nroute 10.2.0.0/16=192.0.2.3\n"
	  "route fd00::/8=192.0.2.2 # v6\n", 0,
	  "nremotes=2 nroutes=3 route0=10.1.0.0/16=192.0.2.2 "
	  "route1=10.2.0.0/16=192.0.2.3 route2=fd00::/8=192.0.2.2" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.1.0.0/16=192.0.2.2"), "", 0,
	  "nroutes=1 route0=10.1.0.0/16=192.0.2.2" },
	{ A(R, "--mode", "tun", "--encap", "gre", "--route",
	    "10.1.0.0/16=192.0.2.2"), "route 10.1.0.0/16=192.0.2.2\n",
	  -EINVAL, "line 1: invalid route '10.1.0.0/16=192.0.2.2': 10.1.0.0/16 "
	  "has a route already (to 192.0.2.2)" },
	{ A(R, "--mode", "tun", "--encap", "gre"),
	  "route 10.1.0.0/16=192.0.2.9\n", -EINVAL,
	  "--route: 192.0.2.9 is not a --remote" },
	{ A(R, "--mode", "tun", "--encap", "gre"),
	  "route tn1=10.1.0.0/16=192.0.2.2\n", -EINVAL,
	  "--route tn1=...: no tap is named tn1" },
	{ A(R, "--mode", "tun", "--encap", "gre"),
	  "\nroute 10.1.2.0/16=192.0.2.2\n", -EINVAL,
	  "line 2: invalid route '10.1.2.0/16=192.0.2.2': host bits set after "
	  "the prefix: the prefix is 10.1.0.0/16" },
	{ A(R, "--mode", "tun", "--encap", "gre"),
	  "route 10.1.0.0/16 192.0.2.2\n", -EINVAL,
	  "line 1: invalid route '10.1.0.0/16 192.0.2.2': missing =ADDR" },
	{ A(R, "--mode", "tun", "--encap", "gre"),
	  "fdb 52:54:00:00:00:03=192.0.2.2\n", -EINVAL,
	  "line 1: 'fdb' is for --mode tap: a tun's IP packets carry no MACs" },
	{ A(R), "route 10.1.0.0/16=192.0.2.2\n", -EINVAL,
	  "line 1: 'route' is for --mode tun: a tap's frames go by MAC" },
	{ A(R), "peer 192.0.2.3\n", -EINVAL,
	  "line 1: 'peer' is neither 'remote ADDR', 'fdb [DEV=]MAC[@VID]=ADDR' "
	  "nor 'route [DEV=]PREFIX=ADDR'" },
	{ A(R), "remote 224.0.0.1\n", -EINVAL,
	  "line 1: invalid remote '224.0.0.1': a multicast address" },
	{ A(R), "fdb ff:ff:ff:ff:ff:ff=192.0.2.2\n", -EINVAL, "multicast MAC" },
	{ A(R), "remote 192.0.2.3 # ......................................."
	  "...........................................................'"
	  "...........................................................'"
	  "...........................................................'"
	  "...........................................................\n",
	  -EINVAL, "line 1: line too long" },
};
#define N_RELOADS (sizeof(reloads) / sizeof(reloads[0]))

static void test_reload(const struct reload *r)
{
	char why[160] = "", word[256], *before, *after;
	const char *const *a;
	struct config cfg;
	char *argv[32];
	int argc = 0, rc;
	const char *miss;
	FILE *f;

	argv[argc++] = "gsotun";
	for (a = r->args; *a; a++)
		argv[argc++] = (char *)*a;
	argv[argc] = NULL;
	options_parse(argc, argv, &cfg);
	before = test_render(&cfg);
	f = fmemopen((void *)r->file, strlen(r->file) + 1, "r");
	rc = f ? peersfile_load(&cfg, f, why, sizeof(why)) : -EIO;
	if (f)
		fclose(f);
	after = test_render(&cfg);
	is_int(rc, r->rc, "reload '%.40s': rc", r->file);
	if (r->rc == 0) {
		miss = test_missing(after, r->want, true, word, sizeof(word));
		if (!ok(!miss, "reload '%.40s': fields", r->file))
			printf("#   want '%s'\n#   got  '%s'\n", miss, after);
	} else {
		if (!ok(strstr(why, r->want) && !strcmp(before, after),
			"reload '%.40s': reason, config unchanged", r->file))
			printf("#   want '%s'\n#   got  '%s'\n", r->want, why);
	}
	free(before);
	free(after);
	cfg_free(&cfg);
}

/*
 * conffile_read() alone: the words a file's len bytes make (joined by
 * spaces), or its error's line and reason.
 */
struct conf_row {
	const char *name;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int rc;
	const char *want;	/* the words, or a text of the reason */
	unsigned int line;	/* of the error */
};

static const struct conf_row conf_rows[] = {
	{ "nothing at all", "", 0, 0, "", 0 },
	{ "blank lines and comments only", "\n  \n# x\n\t# y\n", 0, 0, "", 0 },
	{ "a flag, a value, both forms of blank", "learning\n remote\t 192.0.2.2 "
	  "\t\n", 0, 0, "--learning --remote=192.0.2.2", 0 },
	{ "a last line without its newline", "learning\nvni 5", 0, 0,
	  "--learning --vni=5", 0 },
	{ "CRLF line ends", "learning\r\nvni 5\r\n", 0, 0,
	  "--learning --vni=5", 0 },
	{ "a comment after a blank ends the value", "user a b #c d\n", 0, 0,
	  "--user=a b", 0 },
	{ "a '#' inside a word is the value's", "pidfile /run/x#1\n", 0, 0,
	  "--pidfile=/run/x#1", 0 },
	{ "a comment after a flag", "learning # on\n", 0, 0, "--learning", 0 },
	{ "a comment right after the name is part of it", "learning#\n", 0,
	  -EINVAL, "unknown option 'learning#'", 1 },
	{ "a value that looks like an option", "address --x\n", 0, 0,
	  "--address=--x", 0 },
	{ "a NUL byte", "learning\nvni 5\0\n", 16, -EINVAL, "a NUL byte", 2 },
	{ "a lone CR", "vni\r5\n", 0, -EINVAL, "a control character", 1 },
	{ "an escape", "learning\n\n\033[1m\n", 0, -EINVAL,
	  "a control character", 3 },
	{ "a value missing", "vni\n", 0, -EINVAL, "vni needs a value (vni N)",
	  1 },
	{ "a value too many", "daemon yes\n", 0, -EINVAL,
	  "daemon takes no value", 1 },
	{ "a prefix is not a name", "rem 192.0.2.2\n", 0, -EINVAL,
	  "unknown option 'rem'", 1 },
	{ "upper case is not a name", "Remote 192.0.2.2\n", 0, -EINVAL,
	  "unknown option 'Remote' (did you mean remote?)", 1 },
	{ "a short option is not a name", "v\n", 0, -EINVAL,
	  "unknown option 'v'", 1 },
	{ "--config in a file", "config x\n", 0, -EINVAL,
	  "config is for the command line only", 1 },
};
#define N_CONF (sizeof(conf_rows) / sizeof(conf_rows[0]))

/* The words of cf, a space between two. */
static char *test_words(const struct conffile *cf)
{
	size_t size;
	char *text = NULL;
	FILE *f = open_memstream(&text, &size);
	unsigned int i;

	if (!f)
		return NULL;
	for (i = 0; i < cf->n; i++)
		fprintf(f, "%s%s", i ? " " : "", cf->words[i]);
	fclose(f);
	return text;
}

/* conffile_read() of len bytes at text: rc, and what it said. */
static int test_conf_read(const char *text, size_t len, struct conffile *cf,
			  unsigned int *line, char *why, size_t why_len)
{
	FILE *f = len ? fmemopen((void *)text, len, "r")
		      : fopen("/dev/null", "r");
	int rc;

	if (!f)
		return -EIO;
	rc = conffile_read(f, cf, line, why, why_len);
	fclose(f);
	return rc;
}

static void test_conf_row(const struct conf_row *r)
{
	size_t len = r->len ? r->len : strlen(r->text);
	char why[160] = "", *words;
	struct conffile cf;
	unsigned int line;
	int rc = test_conf_read(r->text, len, &cf, &line, why, sizeof(why));

	is_int(rc, r->rc, "config file, %s: rc", r->name);
	if (!rc) {
		words = test_words(&cf);
		if (!ok(words && !strcmp(words, r->want),
			"config file, %s: words", r->name))
			printf("#   want '%s'\n#   got  '%s'\n", r->want, words);
		free(words);
		conffile_free(&cf);
		return;
	}
	if (!ok(strstr(why, r->want) && line == r->line && !cf.n,
		"config file, %s: line and reason", r->name))
		printf("#   want %u: '%s'\n#   got  %u: '%s'\n", r->line,
		       r->want, line, why);
}

/* The files' bounds: a line of 4096 bytes, 8192 options, 1 MiB. */
static void test_conf_bounds(void)
{
	size_t big = PEERSFILE_MAX + 2, i;
	char *text = malloc(big), why[160] = "";
	struct conffile cf;
	unsigned int line;
	int rc;

	if (!text) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	/* "user " and 4091 bytes: 4096, then one more. */
	memset(text, 'u', 4097);
	memcpy(text, "user ", 5);
	text[4096] = '\n';
	rc = test_conf_read(text, 4097, &cf, &line, why, sizeof(why));
	is_int(rc == 0 && cf.n == 1 ? (int)strlen(cf.words[0]) : rc,
	       (int)strlen("--user=") + 4091,
	       "config file: a line of 4096 bytes is one");
	conffile_free(&cf);
	text[4096] = 'u';
	text[4097] = '\n';
	rc = test_conf_read(text, 4098, &cf, &line, why, sizeof(why));
	ok(rc == -EINVAL && line == 1 && strstr(why, "line too long"),
	   "config file: a line of 4097 bytes is too long (%d, %u: %s)", rc,
	   line, why);
	for (i = 0; i + 4 <= big; i += 4)
		memcpy(text + i, "seq\n", 4);
	rc = test_conf_read(text, CONFFILE_OPTIONS_MAX * 4, &cf, &line, why,
			    sizeof(why));
	ok(rc == 0 && cf.n == CONFFILE_OPTIONS_MAX,
	   "config file: 8192 options are read");
	conffile_free(&cf);
	rc = test_conf_read(text, CONFFILE_OPTIONS_MAX * 4 + 4, &cf, &line,
			    why, sizeof(why));
	ok(rc == -EINVAL && line == CONFFILE_OPTIONS_MAX + 1 &&
	   strstr(why, "more than 8192 options"),
	   "config file: 8193 are too many (%d, %u: %s)", rc, line, why);
	/* Comments, a line of 64 bytes each. */
	memset(text, '#', big);
	for (i = 63; i < big; i += 64)
		text[i] = '\n';
	rc = test_conf_read(text, big, &cf, &line, why, sizeof(why));
	ok(rc == -EINVAL && line == 0 && strstr(why, "more than 1024 KiB"),
	   "config file: more than 1 MiB is said of the file (%d, %u: %s)", rc,
	   line, why);
	free(text);
}

/* test_conf in a directory of its own: true, or false if none can be. */
static bool test_conf_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(test_conf, sizeof(test_conf), "%s/unit-options.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(test_conf))
		return false;
	strcat(test_conf, "/gt.conf");
	return true;
}

/*
 * Every option of optlist.h that sets a field (SET_FLAG, SET_NUM,
 * SET_TEXT, SET_PATH), given once with a value not its default: parsed
 * in the first of these contexts that takes it, its field has the
 * value, conffile_put() writes it as "NAME VALUE" (a flag's "NAME"
 * alone), and the whole config written out reads back with the field
 * the same. A new row is tested without a line here.
 */
static const char *const list_contexts[][10] = {
	{ R },
	{ R, "--encap", "gre" },
	{ R, "--user", "nobody" },
	{ "--local", "198.18.0.1", "--evpn" },
	{ R, "--mode", "tun", "--encap", "gre-udp", "--route",
	  "10.0.0.0/8=192.0.2.2" },
	{ R, "--mode", "tun", "--encap", "geneve" },
	{ R, "--mode", "tun", "--encap", "geneve", "--geneve-echo", "8" },
};
#define N_CONTEXTS (sizeof(list_contexts) / sizeof(*list_contexts))
#define N_LIST_CHECKS 3

/* The value of r to give: its number's far end from the default. */
static void test_list_value(const struct optable_row *r, char *buf,
			    size_t len)
{
	if (r->kind == OPTABLE_NUM)
		snprintf(buf, len, "%llu", r->def == r->max ? r->min : r->max);
	else
		snprintf(buf, len, "%s", r->kind == OPTABLE_PATH ? test_conf :
			 "/x1");
}

/* Parse context i with --name value into *c; 0 when it takes it. */
static int test_list_parse(unsigned int i, const char *name, const char *arg,
			   struct config *c)
{
	char *argv[16], opt[64];
	int argc = 0, err;

	argv[argc++] = "gsotun";
	while (argc < 12 && list_contexts[i][argc - 1])
		argv[argc] = (char *)list_contexts[i][argc - 1], argc++;
	snprintf(opt, sizeof(opt), "--%s", name);
	argv[argc++] = opt;
	if (arg)
		argv[argc++] = (char *)arg;
	argv[argc] = NULL;
	err = options_parse_file(argc, argv, NULL, NULL, true, c);
	if (err)
		cfg_free(c);
	return err;
}

/* Does c's field of r hold what was given (value, or a flag's)? */
static bool test_list_holds(const struct config *c,
			    const struct optable_row *r, const char *value)
{
	const char *t;

	switch (r->kind) {
	case OPTABLE_FLAG:
		return optable_get(c, r) == r->value;
	case OPTABLE_NUM:
		return optable_get(c, r) == strtoull(value, NULL, 10);
	default:
		t = optable_text(c, r);
		return t && !strcmp(t, value);
	}
}

/* What conffile_put() writes of r's first item, into buf. */
static void test_list_put(const struct config *c, const struct optable_row *r,
			  char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	buf[0] = '\0';
	if (!f)
		return;
	conffile_put(f, c, r->key, 0);
	fclose(f);
}

/* c written out and parsed back alone into *back; 0 when it parses. */
static int test_list_again(const struct config *c, struct config *back)
{
	char *text = NULL, *argv[] = { "gsotun", NULL };
	size_t size;
	FILE *f = open_memstream(&text, &size);
	int err = -1;

	if (!f)
		return -1;
	conffile_write(f, c);
	fclose(f);
	f = fmemopen(text, size, "r");
	if (f) {
		err = options_parse_file(1, argv, f, "written", true, back);
		fclose(f);
	}
	free(text);
	return err;
}

static void test_list_row(const struct optable_row *r, const char *name)
{
	char value[4200], want[4300], got[4300];
	struct config c, back;
	unsigned int i;
	bool holds;

	test_list_value(r, value, sizeof(value));
	for (i = 0; i < N_CONTEXTS; i++)
		if (!test_list_parse(i, name, r->kind == OPTABLE_FLAG ? NULL :
				     value, &c))
			break;
	if (!ok(i < N_CONTEXTS && test_list_holds(&c, r, value),
		"--%s%s%s: parsed into its field", name,
		r->kind == OPTABLE_FLAG ? "" : " ",
		r->kind == OPTABLE_FLAG ? "" : value)) {
		ok(0, "--%s: not written", name);
		ok(0, "--%s: not read back", name);
		if (i < N_CONTEXTS)
			cfg_free(&c);
		return;
	}
	if (r->kind == OPTABLE_FLAG)
		snprintf(want, sizeof(want), "%s\n", name);
	else
		snprintf(want, sizeof(want), "%s %s\n", name, value);
	test_list_put(&c, r, got, sizeof(got));
	if (!ok(!strcmp(got, want), "--%s: written as '%.*s'", name,
		(int)strlen(want) - 1, want))
		printf("# wrote '%s'\n", got);
	holds = !test_list_again(&c, &back);
	ok(holds && test_list_holds(&back, r, value), "--%s: read back",
	   name);
	if (holds)
		cfg_free(&back);
	cfg_free(&c);
}

/* The rows test_list_row() takes, and runs each when run. */
static unsigned int test_list(bool run)
{
	unsigned int i, n = 0;

	for (i = 0; optable[i].name || optable[i].doc; i++) {
		if (optable_rows[i].kind == OPTABLE_GROUP ||
		    optable_rows[i].kind == OPTABLE_CALL ||
		    optable_rows[i].put != OPTABLE_PUT_SAME)
			continue;
		n++;
		if (run)
			test_list_row(&optable_rows[i], optable[i].name);
	}
	return n;
}

int main(void)
{
	struct result res;
	char name[512];
	unsigned int i;
	int n = 0;

	if (!getcwd(test_cwd, sizeof(test_cwd)))
		test_cwd[0] = '\0';
	if (!test_conf_dir()) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	for (i = 0; i < N_ROWS; i++)
		n += 1 + !!rows[i].want + !!rows[i].out +
		     (rows[i].want && !rows[i].status);
	plan(n + (int)N_CIDR + (int)N_CPUS + 2 * (int)N_RELOADS +
	     2 * (int)N_CONF + 5 + N_LIST_CHECKS * (int)test_list(false));
	for (i = 0; i < N_ROWS; i++) {
		test_name(&rows[i], name, sizeof(name));
		if (test_run(&rows[i], &res)) {
			printf("Bail out! cannot run a child\n");
			return 1;
		}
		test_check(&rows[i], name, &res);
		free(res.out);
		free(res.err);
		free(res.cfg);
	}
	test_cidr();
	test_cpus();
	for (i = 0; i < N_RELOADS; i++)
		test_reload(&reloads[i]);
	for (i = 0; i < N_CONF; i++)
		test_conf_row(&conf_rows[i]);
	test_conf_bounds();
	/* --peers' file, empty. */
	test_write_file("");
	test_list(true);
	unlink(test_conf);
	*strrchr(test_conf, '/') = '\0';
	rmdir(test_conf);
	return done_testing();
}
