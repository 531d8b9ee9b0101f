#include "bobbin_ipc.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *msg)
{
    if (msg != NULL) {
        fprintf(stderr, "bobbin-ipcd: %s\n", msg);
    }
    fprintf(stderr,
            "usage: bobbin-ipcd --unix=/path/daemon.sock [--tcp=127.0.0.1:PORT] [--max-frame=BYTES]\n"
            "                   [--spin-us=MICROSECONDS] [--quiet]\n"
            "                   [--unix-group=GROUP] [--allow-uid=USER]...\n");
    return 2;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    bipc_daemon_config cfg = {.tcp_host = "127.0.0.1", .tcp_port = -1, .max_frame = BIPC_DEFAULT_MAX_FRAME};
    static char host[64];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long v;
        if (strncmp(a, "--unix=", 7) == 0) {
            cfg.unix_path = a + 7;
        } else if (strncmp(a, "--tcp=", 6) == 0) {
            const char *colon = strrchr(a + 6, ':');
            if (colon == NULL || (size_t)(colon - (a + 6)) >= sizeof(host) || parse_uint(colon + 1, 65535, &v) != 0) {
                return usage("--tcp expects HOST:PORT");
            }
            memcpy(host, a + 6, (size_t)(colon - (a + 6)));
            host[colon - (a + 6)] = '\0';
            cfg.tcp_host = host;
            cfg.tcp_port = (int)v;
        } else if (strncmp(a, "--max-frame=", 12) == 0) {
            /* At most 1 GiB: a request length never reaches the control flag (bit 31). */
            if (parse_uint(a + 12, BIPC_MAX_FRAME_LIMIT, &v) != 0 || v < 1) {
                return usage("--max-frame expects a byte count between 1 and 1 GiB");
            }
            cfg.max_frame = (uint32_t)v;
        } else if (strncmp(a, "--spin-us=", 10) == 0) {
            if (parse_uint(a + 10, 1000000ul, &v) != 0) {
                return usage("--spin-us expects microseconds (0..1000000)");
            }
            cfg.spin_us = (uint32_t)v;
        } else if (strncmp(a, "--allow-uid=", 12) == 0) {
            struct passwd *pw = getpwnam(a + 12);
            if (pw != NULL) {
                v = pw->pw_uid;
            } else if (parse_uint(a + 12, 0xfffffffeul, &v) != 0) {
                return usage("--allow-uid expects a user name or uid");
            }
            if (cfg.allow_uid_count == BIPC_MAX_ALLOWED_UIDS) {
                return usage("--allow-uid given too many times");
            }
            cfg.allow_uids[cfg.allow_uid_count++] = (uid_t)v;
        } else if (strncmp(a, "--unix-group=", 13) == 0) {
            struct group *gr = getgrnam(a + 13);
            if (gr != NULL) {
                v = gr->gr_gid;
            } else if (parse_uint(a + 13, 0xfffffffeul, &v) != 0) {
                return usage("--unix-group expects a group name or gid");
            }
            cfg.has_group = 1;
            cfg.unix_gid = (gid_t)v;
        } else if (strcmp(a, "--quiet") == 0) {
            cfg.quiet = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(NULL);
            return 0;
        } else {
            fprintf(stderr, "bobbin-ipcd: unknown option %s\n", a);
            return usage(NULL);
        }
    }
    if (cfg.unix_path == NULL) {
        return usage("--unix is required");
    }
    return bipc_daemon_run(&cfg);
}
