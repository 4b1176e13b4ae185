/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel UAPI constants newer than Debian 12's headers (6.1), each defined
 * only when configure found it missing (values from the kernel's uapi).
 */
#ifndef GSOTUN_COMPAT_H
#define GSOTUN_COMPAT_H

#include "config.h"
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <linux/udp.h>

#if !HAVE_DECL_TUN_F_USO4
#define TUN_F_USO4 0x20
#endif
#if !HAVE_DECL_TUN_F_USO6
#define TUN_F_USO6 0x40
#endif
#if !HAVE_DECL_VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
#if !HAVE_DECL_UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#if !HAVE_DECL_UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

#endif
