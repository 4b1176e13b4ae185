/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every option gsotun takes, once: OPTIONS_LIST(G, O, L) in --help's
 * order. optable.h makes the keys of it, optable.c argp's table and the
 * rows that say where a value goes, options.c the parsers' table and
 * conffile.c the writers' (--check, the control socket's config). A new
 * option is its row here and its entry in gsotun(8) (tests/cli.sh holds
 * the two to each other), with the field of struct config it sets.
 *
 *   G(doc)                                a group's heading in --help
 *   O(KEY, name, arg, parse, put, doc)    --name, key OPT_KEY
 *   L(letter, name, flags, parse, put, doc)  -letter and --name
 *
 * arg is NULL for an option that takes none. parse says what its value
 * does to struct config:
 *   SET_FLAG(field, value)          field (a bool) = value; !value is the
 *                                   default
 *   SET_NUM(field, min, max, def)   a number in min..max into field (a
 *                                   uint16_t, int or unsigned int); def
 *                                   the default
 *   SET_TEXT(field)                 a non-empty string, copied (owned)
 *   SET_PATH(field)                 a file name made absolute (owned)
 *   PARSE(fn)                       options.c's options_fn() does it
 * and put how a configuration writes it out ("NAME VALUE"):
 *   PUT_SAME   as parse set it: a flag when set, a number when not its
 *              default, a string when given
 *   PUT(fn)    conffile.c's conffile_put_fn() writes it
 *   PUT_NONE   never (--config, --check, -h)
 */
#ifndef GSOTUN_OPTLIST_H
#define GSOTUN_OPTLIST_H

#define OPTIONS_LIST(G, O, L)                                                 \
	G("Tunnel:")                                                          \
	O(REMOTE, "remote", "ADDR", PARSE(remote), PUT(remote),               \
	  "A peer's IPv4 or IPv6 address; repeatable, one per peer, "         \
	  "all of one family, up to 1024 (none: --local gives the "           \
	  "family, peers come later)")                                        \
	O(LOCAL, "local", "ADDR", PARSE(local), PUT(local),                   \
	  "Local address to bind and send from, same family as "              \
	  "--remote (default: any; 0.0.0.0 or :: any of a family)")           \
	O(ALLOW, "allow", "CIDR", PARSE(allow), PUT(allow),                   \
	  "Also take packets from sources in CIDR (same family as "           \
	  "--remote); repeatable, up to 16")                                  \
	O(PORT, "port", "N", SET_NUM(port, 1, 65535, 0), PUT(port),           \
	  "UDP port sent to and bound, 1..65535 (default %s; not "            \
	  "with %s)")                                                         \
	O(SOURCE_PORTS, "source-ports", "N",                                  \
	  SET_NUM(src_ports, 1, CONFIG_MAX_SRC_PORTS, 0), PUT(source_ports),  \
	  "UDP source ports that inner flows are spread over, for "           \
	  "ECMP and RSS on the way, 1..64 (default 8; 1: --port "             \
	  "only; not with %s)")                                               \
	O(TTL, "ttl", "N", SET_NUM(ttl, 1, 255, 0), PUT_SAME,                 \
	  "Outer TTL or hop limit, 1..255 (default: the kernel's)")           \
	O(TOS, "tos", "N|inherit", PARSE(tos), PUT(tos),                      \
	  "Outer TOS or traffic class, 0..255, or 'inherit' from the "        \
	  "inner packet (default 0)")                                         \
	O(DF, "df", "set|unset|inherit", PARSE(df), PUT(df),                  \
	  "Outer DF bit on an IPv4 underlay: always, never, or as the "       \
	  "inner packet (IPv4 DF, or IPv6) has it (default unset)")           \
	O(PMTUD, "pmtud", "on|off", PARSE(pmtud), PUT(pmtud),                 \
	  "Answer packets too big for the path with ICMP "                    \
	  "'fragmentation needed' / ICMPv6 'packet too big' into the "        \
	  "tap (default on)")                                                 \
                                                                              \
	G("Forwarding (several --remote):")                                   \
	O(FDB, "fdb", "[DEV=]MAC[@VID]=ADDR", PARSE(fdb), PUT(fdb),           \
	  "Frames to MAC (on VLAN VID) go to the peer at ADDR, one "          \
	  "of --remote, in every tap (or tap DEV); repeatable, up to "        \
	  "4096 (others are flooded to every peer)")                          \
	O(LEARNING, "learning", NULL, SET_FLAG(learning, true), PUT_SAME,     \
	  "Learn the source MACs of frames from each peer")                   \
	O(AGEING, "ageing", "SECONDS",                                        \
	  SET_NUM(ageing, 0, CONFIG_MAX_AGEING, CONFIG_AGEING), PUT_SAME,     \
	  "Forget a learnt MAC not seen for SECONDS, 0..1000000 "             \
	  "(default 300; 0: never)")                                          \
	O(MAX_ADDRESS, "max-address", "N",                                    \
	  SET_NUM(max_address, 1, CONFIG_MAX_ADDRESS_MAX,                     \
		  CONFIG_MAX_ADDRESS), PUT_SAME,                              \
	  "Learn at most N MACs, 1..1048576 (default 4096)")                  \
	O(PEERS, "peers", "FILE", SET_PATH(peers_file), PUT_SAME,             \
	  "More peers and entries from FILE, lines 'remote ADDR', "           \
	  "'fdb [DEV=]MAC[@VID]=ADDR' and 'route [DEV=]PREFIX=ADDR', "        \
	  "read again on SIGHUP")                                             \
	O(EVPN, "evpn", NULL, SET_FLAG(evpn, true), PUT_SAME,                 \
	  "Join a BGP EVPN fabric that FRR on this host runs: peers "         \
	  "and remote MACs from zebra, the taps' MACs advertised "            \
	  "(--mode tap, --encap %s, --local ADDR; no --learning)")            \
	O(EVPN_PORT, "evpn-port", "N",                                        \
	  SET_NUM(evpn_port, 1, 65535, CONFIG_EVPN_PORT), PUT_SAME,           \
	  "UDP port of the shadow vxlan devices --evpn makes for "            \
	  "zebra, 1..65535, not the underlay's --port (default "              \
	  "64789)")                                                           \
	O(EVPN_VTEPS, "evpn-vteps", "PERCENT",                                \
	  SET_NUM(evpn_vteps, 1, 100, CONFIG_EVPN_VTEPS), PUT_SAME,           \
	  "The most of the peer slots the fabric's VTEPs may take, "          \
	  "1..100 per cent of 1024 (default 75): the rest stay for "          \
	  "--remote, --peers and peer add")                                   \
                                                                              \
	G("Routing (--mode tun, several --remote):")                          \
	O(ROUTE, "route", "[DEV=]PREFIX=ADDR", PARSE(route), PUT(route),      \
	  "IP packets to PREFIX (IPv4 or IPv6, longest match) go to "         \
	  "the peer at ADDR, one of --remote, in every tun (or tun "          \
	  "DEV), and PREFIX is routed into the tun; repeatable, up to "       \
	  "4096 (others are dropped)")                                        \
	O(STRICT_SOURCE, "strict-source", NULL,                               \
	  SET_FLAG(strict_source, true), PUT_SAME,                            \
	  "Drop a received packet whose inner source is not routed "          \
	  "(by --route) to the peer it came from (default: taken, as "        \
	  "the kernel's GRE takes it)")                                       \
                                                                              \
	G("Encapsulation:")                                                   \
	O(ENCAP, "encap", "TYPE", PARSE(encap), PUT(encap),                   \
	  "%s (default vxlan)")                                               \
	O(VNI, "vni", "N", PARSE(vni), PUT(id),                               \
	  "VXLAN network identifier, 0..16777215 (default 1; %s "             \
	  "only); N=DEV: another tap, DEV, for VNI N (repeatable, up "        \
	  "to 16 taps)")                                                      \
	O(KEY, "key", "N", PARSE(key), PUT(id),                               \
	  "GRE key, 0..4294967295 (default none; %s only); N=DEV: "           \
	  "another tap, DEV, for key N (repeatable)")                         \
	O(CSUM, "csum", NULL, PARSE(csum), PUT(csum),                         \
	  "Outer checksum: UDP checksum for the UDP encapsulations, "         \
	  "GRE checksum for gre (default: on over UDP, off for gre)")         \
	O(NO_CSUM, "no-csum", NULL, PARSE(no_csum), PUT(no_csum),             \
	  "No outer checksum")                                                \
	O(SEQ, "seq", NULL, SET_FLAG(encap.gre_seq, true), PUT_SAME,          \
	  "GRE sequence numbers (%s only)")                                   \
	O(GENEVE_OPT, "geneve-opt", "CLASS:TYPE:HEX", PARSE(geneve_opt),      \
	  PUT(geneve_opt),                                                    \
	  "An option that every packet carries after its header: class "      \
	  "and type in hex (type 80 and up: critical), data as hex "          \
	  "digits, a multiple of 4 bytes up to 124; repeatable, 252 "         \
	  "bytes in all (%s only)")                                           \
	O(GENEVE_ECHO, "geneve-echo", "FLOWS",                                \
	  SET_NUM(geneve_echo, 0, CONFIG_ECHO_FLOWS_MAX, 0), PUT_SAME,        \
	  "Send each flow's return packets with the options its packets "     \
	  "came with, to the peer they came from, as an appliance behind "    \
	  "a Gateway Load Balancer; up to FLOWS flows, 1..1048576 "           \
	  "(default 0: off; --mode tun, %s only)")                           \
	O(GENEVE_ECHO_ROOM, "geneve-echo-room", "BYTES",                      \
	  SET_NUM(geneve_echo_room, 4, CONFIG_ECHO_ROOM_MAX,                  \
		  CONFIG_ECHO_ROOM), PUT_SAME,                                \
	  "The options a flow's packets may bring for --geneve-echo, a "      \
	  "multiple of 4 up to 252, left free of the MTU (default 64)")      \
                                                                              \
	G("Device:")                                                          \
	O(MODE, "mode", "tap|tun", PARSE(mode), PUT(mode),                    \
	  "A tap, Ethernet frames (default), or a tun, IP packets "           \
	  "(--encap %s)")                                                     \
	O(DEV, "dev", "NAME", PARSE(dev), PUT(dev),                           \
	  "Tap (or tun) device name (default gsotun0)")                       \
	O(MTU, "mtu", "N|auto", PARSE(mtu), PUT(mtu),                         \
	  "Tap MTU, 68..65535 (default auto: the underlay path MTU "          \
	  "minus the encapsulation overhead)")                                \
	O(ADDRESS, "address", "[DEV=]CIDR", PARSE(address), PUT(address),     \
	  "Address/prefix for the tap (or tap DEV), IPv4 or IPv6; "           \
	  "repeatable, up to 16")                                             \
	O(MAC, "mac", "[DEV=]MAC", PARSE(mac), PUT(mac),                      \
	  "Ethernet address of the tap (or tap DEV), unicast, not "           \
	  "zero (default: a stable one derived from the machine id, "         \
	  "the tap's name and the local address)")                            \
	O(NO_OFFLOAD, "no-offload", NULL, PARSE(no_offload), PUT(no_offload), \
	  "The classic userspace tunnel, as a baseline: no TSO or "           \
	  "checksum offload on the tap, no UDP GSO or GRO, no TCP "           \
	  "merging, one packet per system call")                              \
	O(NO_GRO, "no-gro", NULL, SET_FLAG(gro, false), PUT(no_gro),          \
	  "Do not merge received TCP segments or UDP datagrams into "         \
	  "super-frames for the tap")                                         \
	O(UDP_GRO, "udp-gro", "auto|on|off", PARSE(udp_gro), PUT(udp_gro),    \
	  "Merge received UDP datagrams: auto (default) on kernels "          \
	  "that cut them at their tunnel sockets (Linux 6.9, 6.8.5, "         \
	  "6.6.26 and later), on for one with that fix backported")           \
	O(QUEUES, "queues", "N|auto", PARSE(queues), PUT(queues),             \
	  "Data paths, each with a tap queue, an underlay socket and "        \
	  "a thread of its own: 1..64, or auto, one per CPU gsotun may "      \
	  "run on or --cpus lists (default 1; gre and --seq take 1)")         \
	O(CPUS, "cpus", "LIST", PARSE(cpus), PUT(cpus),                       \
	  "Run queue i on the i-th CPU of LIST, as taskset -c takes "         \
	  "it ('0-3,8'); at least as many as --queues")                       \
	O(BUSY_POLL, "busy-poll", "USEC",                                     \
	  SET_NUM(busy_poll, 0, CONFIG_BUSY_POLL_MAX, 0), PUT_SAME,           \
	  "After a packet, poll for the next one for up to USEC "             \
	  "microseconds, 0..10000, before sleeping: less latency for "        \
	  "a CPU's time (default 0: sleep at once)")                          \
	O(RX_COALESCE, "rx-coalesce", "MSEC",                                 \
	  SET_NUM(rx_coalesce, 0, CONFIG_RX_COALESCE_MAX, 0), PUT_SAME,       \
	  "While packets stream in, read the underlay MSEC milliseconds "     \
	  "after it was emptied, 0..10, in one batch: fewer system calls "    \
	  "for latency (default 0: at once)")                                 \
	O(ZEROCOPY, "zerocopy", NULL, SET_FLAG(zerocopy, true), PUT_SAME,     \
	  "Send datagrams of 32 KB or more zero-copy (io_uring "              \
	  "SENDMSG_ZC): the NIC reads the frames where they are; only "       \
	  "on a path of large MTU (default: copied)")                         \
                                                                              \
	G("Process:")                                                         \
	O(CONFIG, "config", "FILE", PARSE(config), PUT_NONE,                  \
	  "Read options from FILE first, one a line as 'NAME [VALUE]' "       \
	  "('learning', 'remote 192.0.2.2'); those of the command "           \
	  "line add to its lists and override the rest")                      \
	O(CHECK, "check", NULL, SET_FLAG(check, true), PUT_NONE,              \
	  "Check the options, print the configuration they make in "          \
	  "the form of --config, and exit (0, or 64 on an error) "            \
	  "without setting anything up")                                      \
	L('v', "verbose", 0, PARSE(verbose), PUT(verbose),                    \
	  "More messages (repeatable)")                                       \
	L('q', "quiet", 0, PARSE(quiet), PUT(quiet),                          \
	  "Fewer messages (repeatable)")                                      \
	/* -h is --help, as people expect; argp has -? only. */               \
	L('h', NULL, OPTION_HIDDEN, PARSE(help), PUT_NONE,                    \
	  "Give this help list")                                              \
	O(LOG_TIME, "log-time", NULL, SET_FLAG(log_time, true), PUT_SAME,     \
	  "Start each message on stderr with the local time")                 \
	O(DAEMON, "daemon", NULL, SET_FLAG(daemon, true), PUT_SAME,           \
	  "Run in the background, logging to syslog")                         \
	O(PIDFILE, "pidfile", "FILE", SET_PATH(pidfile), PUT_SAME,            \
	  "Write the process id to FILE")                                     \
	O(CONTROL, "control", "@NAME|PATH|none",                              \
	  PARSE(control), PUT(control),                                       \
	  "The control socket gsotunctl talks to: an abstract name "          \
	  "(default @gsotun/DEV, of this network namespace), a file, "        \
	  "or none")                                                          \
	O(ADMIN_GROUP, "admin-group", "GROUP",                                \
	  SET_TEXT(admin_group), PUT_SAME,                                    \
	  "Members of GROUP (a name or a number) may change peers "           \
	  "and forwarding through the control socket, as root may; "          \
	  "gsotun's user and group only read")                                \
	O(USER, "user", "NAME", SET_TEXT(user), PUT_SAME,                     \
	  "Once set up, run as user NAME (and its group) with no "            \
	  "capabilities but CAP_NET_ADMIN where the MTU must follow "         \
	  "the path")                                                         \
	O(CHROOT, "chroot", "DIR", SET_TEXT(chroot), PUT_SAME,                \
	  "Once set up, change root to DIR (with --user)")                    \
	O(NO_SECCOMP, "no-seccomp", NULL, SET_FLAG(seccomp, false), PUT_SAME, \
	  "Run without the seccomp filter that, once set up, "                \
	  "refuses every system call the tunnel does not make")               \


#endif
