// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main() for the fuzz harnesses where libFuzzer is not linked: each file
 * argument, or each file in a directory argument, is run through once.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

/* The whole file in a buffer of exactly its size, as libFuzzer gives it. */
static int replay_file(const char *path)
{
	uint8_t *buf = NULL;
	struct stat st;
	size_t n = 0;
	FILE *f;
	int err = 0;

	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (st.st_size > 0) {
		buf = malloc((size_t)st.st_size);
		n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
		if (n != (size_t)st.st_size) {
			fprintf(stderr, "replay: %s: short read\n", path);
			err = -1;
		}
	}
	fclose(f);
	if (!err) {
		fprintf(stderr, "replay: %s\n", path);
		LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", n);
	}
	free(buf);
	return err;
}

static int replay_skip_dot(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Every regular file in dir, in name order so that runs are repeatable. */
static int replay_dir(const char *dir, unsigned int *count)
{
	struct dirent **names;
	char path[4096];
	struct stat st;
	int n, i, err = 0;

	n = scandir(dir, &names, replay_skip_dot, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (replay_file(path))
				err = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	struct stat st;
	int i, err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			err = -1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count))
				err = -1;
		} else if (replay_file(argv[i])) {
			err = -1;
		} else {
			count++;
		}
	}
	fprintf(stderr, "replay: %u inputs\n", count);
	return err ? 1 : 0;
}
