/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The configuration gsotun runs (struct config): what the command line,
 * the config file, the peers file and the control socket fill in, and
 * every room above reads. Types only.
 */
#ifndef GSOTUN_CONF_TYPES_H
#define GSOTUN_CONF_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "base/types.h"
#include "encap/encap.h"

#define CONFIG_MAX_ADDRS 16
#define CONFIG_MAX_ALLOW 16
/*
 * UDP source ports: as the kernel's vxlan (udp_flow_src_port()), the port
 * is picked by a hash of the inner flow so that ECMP and RSS on the way
 * spread flows (RFC 7348 section 5, RFC 8086 section 3.2.1); a socket each.
 */
#define CONFIG_MAX_SRC_PORTS 64
#define CONFIG_SRC_PORTS 8
/* Taps, one per VNI or GRE key (--vni N=DEV, --key N=DEV), at most. */
#define CONFIG_MAX_TUNNELS 16
#define CONFIG_MAX_QUEUES 64	/* --queues: data paths, threads */
/* Peers (--remote) and static forwarding entries (--fdb) at most. */
#define CONFIG_MAX_PEERS 1024
#define CONFIG_MAX_FDB 4096
/*
 * Routes (--route and the peers file's) at most: as many as static
 * forwarding entries. Each tap's route table is made for them all at
 * start (route_init(), 192 KiB), so that a reload or a route added
 * through the control socket never allocates, and each is a kernel
 * route of the tun as well (ip route add PREFIX dev TUN), added at
 * start and removed at exit in one rtnetlink request each.
 */
#define CONFIG_MAX_ROUTES 4096
/*
 * Learnt forwarding entries: the kernel's vxlan ages them after 300 s
 * (VXLAN_AGEING_DEFAULT_TIME); its maxaddress is unlimited by default,
 * ours is bounded so that a flood of source MACs cannot grow memory.
 */
#define CONFIG_AGEING 300
/* --busy-poll: at most 10 ms of polling after a packet. */
#define CONFIG_BUSY_POLL_MAX 10000
/* --rx-coalesce: at most 10 ms between a stream's reads. */
#define CONFIG_RX_COALESCE_MAX 10
/*
 * --geneve-echo: flows held at most, and the option bytes a flow's
 * packets may bring by default, room for the Gateway Load Balancer's
 * three (32 bytes) twice over.
 */
#define CONFIG_ECHO_FLOWS_MAX (1u << 20)
#define CONFIG_ECHO_ROOM 64
#define CONFIG_ECHO_ROOM_MAX 252
#define CONFIG_MAX_AGEING 1000000
#define CONFIG_MAX_ADDRESS 4096
#define CONFIG_MAX_ADDRESS_MAX (1u << 20)
/* The encapsulation, the main tap's name and its VNI by default. */
#define CONFIG_ENCAP ENCAP_VXLAN
#define CONFIG_DEV "gsotun0"
#define CONFIG_VNI 1
/* One queue (--queues): one loop for everything. */
#define CONFIG_QUEUES 1
/*
 * --evpn-port: the UDP port of the shadow vxlan devices (evpn.c). The
 * kernel binds it on every address once such a device is up
 * (vxlan_sock_add()), so it cannot be gsotun's own --port; above the
 * ephemeral range (ip_local_port_range 32768-60999) and none of 4789,
 * 4790 (VXLAN-GPE) or 8472 (flannel, the kernel's old default).
 */
#define CONFIG_EVPN_PORT 64789
/*
 * --evpn-vteps: the fabric's VTEPs alone take at most 75% of the
 * peer slots; the rest stay for --remote, --peers and `peer add`.
 */
#define CONFIG_EVPN_VTEPS 75

/* --vni N=DEV, --key N=DEV: another tap, for VNI or GRE key id. */
struct config_tap {
	char dev[IFNAMSIZ];
	uint32_t id;
};

/* --mac [DEV=]MAC: the Ethernet address of a tap. */
struct config_mac {
	uint8_t mac[6];
	char dev[IFNAMSIZ];		/* as given, or "" for --dev */
	unsigned char tap;		/* 0: --dev, i: taps[i - 1] */
};

enum tos_mode { TOS_FIXED = 0, TOS_INHERIT };

/* Outer DF bit on an IPv4 underlay (the kernel's vxlan "df" setting). */
enum df_mode { DF_UNSET = 0, DF_SET, DF_INHERIT };

/* --udp-gro: merge received UDP datagrams; auto: by the kernel release. */
enum udp_gro {
	UDP_GRO_AUTO = 0,
	UDP_GRO_ON,
	UDP_GRO_OFF,
};

struct config {
	char dev[IFNAMSIZ];		/* --dev, default CONFIG_DEV */
	/* --encap, --vni, --key, --csum, --seq; --mode tun: encap.l3 */
	struct encap_cfg encap;
	bool csum;			/* outer checksum (UDP csum or GRE C) */
	struct ipaddr local;		/* --local */
	int family;			/* the underlay's: every peer's */
	/*
	 * The peers: --remote, repeatable, then the peers file's; and the
	 * static forwarding entries, --fdb then the file's (owned).
	 */
	struct ipaddr *remotes;
	unsigned int n_remotes;		/* none, with --local, or more */
	unsigned int n_remotes_cmd;	/* of which the command line's */
	struct config_fdb *fdb;
	unsigned int n_fdb, n_fdb_cmd;
	/* --mode tun (encap.l3): --route then the file's (owned). */
	struct config_route *routes;
	unsigned int n_routes, n_routes_cmd;
	bool strict_source;		/* --strict-source */
	unsigned int geneve_echo;	/* --geneve-echo FLOWS; 0: off */
	uint16_t geneve_echo_room;	/* --geneve-echo-room BYTES */
	char *peers_file;		/* --peers FILE, absolute (owned) */
	char *peers_in_root;		/* seen inside --chroot (owned) */
	bool learning;			/* --learning */
	bool evpn;			/* --evpn: peers and MACs from FRR */
	uint16_t evpn_port;		/* --evpn-port, host order */
	unsigned int evpn_vteps;	/* --evpn-vteps, per cent */
	uint32_t ageing;		/* --ageing seconds; 0: never */
	unsigned int max_address;	/* --max-address: learnt entries */
	uint16_t port;			/* --port; 0 picks the encap default */
	unsigned int src_ports;		/* --source-ports; 1: --port only */
	struct cidr allow[CONFIG_MAX_ALLOW];	/* --allow: more peers */
	unsigned int n_allow;
	uint32_t mtu;			/* --mtu N; 0 means auto */
	struct cidr addrs[CONFIG_MAX_ADDRS];	/* --address, repeatable */
	unsigned int n_addrs;
	/* --address DEV=CIDR: the tap (0: --dev, i: taps[i - 1]) */
	unsigned char addr_tap[CONFIG_MAX_ADDRS];
	char addr_dev[CONFIG_MAX_ADDRS][IFNAMSIZ];	/* its name, or "" */
	unsigned int queues;	/* --queues: 1 by default; 0 is auto */
	unsigned int busy_poll;	/* --busy-poll USEC; 0: off */
	unsigned int rx_coalesce;	/* --rx-coalesce MSEC; 0: off */
	bool zerocopy;		/* --zerocopy: large sends SENDMSG_ZC */
	unsigned int n_cpus;	/* --cpus: how many listed; 0 none */
	uint16_t cpus[CONFIG_MAX_QUEUES];	/* queue i runs on cpus[i] */
	struct config_tap taps[CONFIG_MAX_TUNNELS - 1];	/* more taps */
	unsigned int n_taps;
	struct config_mac macs[CONFIG_MAX_TUNNELS];	/* --mac */
	unsigned int n_macs;
	int ttl;			/* --ttl 1..255; 0 = kernel default */
	enum tos_mode tos_mode;		/* --tos N|inherit */
	uint8_t tos;
	enum df_mode df;		/* --df set|unset|inherit */
	bool df_set;			/* --df was given */
	bool pmtud;			/* false with --pmtud off */
	bool offload;			/* false with --no-offload */
	bool gro;			/* false with --no-gro */
	enum udp_gro udp_gro;		/* --udp-gro auto|on|off */
	int verbosity;			/* 0 normal, -v raises, -q lowers */
	bool daemon;			/* --daemon */
	bool log_time;			/* --log-time */
	char *pidfile;			/* --pidfile FILE (owned, strdup) */
	char *control;			/* --control; NULL: default (owned) */
	char *user;			/* --user NAME (owned) */
	char *admin_group;		/* --admin-group GROUP (owned) */
	char *chroot;			/* --chroot DIR (owned) */
	bool seccomp;			/* false with --no-seccomp */
	bool check;			/* --check: print it, run nothing */
};

/*
 * --fdb [DEV=]MAC[@VID]=ADDR: frames to mac on vlan go to the peer at
 * ADDR, in tap DEV or, without, in every tap.
 */
struct config_fdb {
	uint8_t mac[6];
	uint16_t vlan;			/* 802.1Q VID; 0: untagged */
	struct ipaddr peer;
	char dev[IFNAMSIZ];		/* DEV, or "": every tap */
};

/*
 * --route [DEV=]PREFIX=ADDR (--mode tun): packets to prefix go to the
 * peer at ADDR, in tap DEV or, without, in every tap.
 */
struct config_route {
	struct cidr prefix;		/* no bits set after its length */
	struct ipaddr peer;
	char dev[IFNAMSIZ];		/* DEV, or "": every tap */
};

#endif
