// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A parsed configuration asked and freed (cfg.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "conf/cfg.h"

int cfg_tap_index(const struct config *cfg, const char *dev)
{
	unsigned int i;

	if (!strcmp(dev, cfg->dev))
		return 0;
	for (i = 0; i < cfg->n_taps; i++)
		if (!strcmp(dev, cfg->taps[i].dev))
			return (int)i + 1;
	return -1;
}

const uint8_t *cfg_tap_mac(const struct config *cfg, unsigned int tap)
{
	unsigned int i;

	for (i = 0; i < cfg->n_macs; i++)
		if (cfg->macs[i].tap == tap)
			return cfg->macs[i].mac;
	return NULL;
}

void cfg_free(struct config *cfg)
{
	free(cfg->pidfile);
	free(cfg->user);
	free(cfg->admin_group);
	free(cfg->chroot);
	free(cfg->remotes);
	free(cfg->fdb);
	free(cfg->routes);
	free(cfg->peers_file);
	free(cfg->peers_in_root);
	free(cfg->control);
	cfg->peers_file = NULL;
	cfg->peers_in_root = NULL;
	cfg->control = NULL;
	cfg->pidfile = NULL;
	cfg->user = NULL;
	cfg->admin_group = NULL;
	cfg->chroot = NULL;
	cfg->remotes = NULL;
	cfg->fdb = NULL;
	cfg->routes = NULL;
}
