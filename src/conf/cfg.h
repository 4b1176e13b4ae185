/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every room asks of a parsed configuration (conf/types.h's struct
 * config), and its end: the parser's own API is options.h. Pure.
 */
#ifndef GSOTUN_CFG_H
#define GSOTUN_CFG_H

#include <stdint.h>
#include "conf/types.h"

/* The tap named dev: 0 for --dev, i for taps[i - 1]; -1 if none. */
int cfg_tap_index(const struct config *cfg, const char *dev);

/* The --mac of tap (0: --dev, i: taps[i - 1]), or NULL: none given. */
const uint8_t *cfg_tap_mac(const struct config *cfg, unsigned int tap);

/* Free what options_parse() allocated. */
void cfg_free(struct config *cfg);

#endif
