/*
 * C client for bench/ipc: the ceiling the PHP client is compared with.
 * usage: bobbin-ipc-bench unix|tcp|shm SOCKET_PATH TCP_PORT SIZE REQUESTS RECONNECT_EVERY
 * Prints one line: "<requests/s> <mean µs per request>".
 */
#include "bobbin_ipc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_client(bipc_client *c, const char *mode, const char *sock, int port)
{
    if (strcmp(mode, "tcp") == 0) {
        return bipc_client_connect_tcp(c, "127.0.0.1", port);
    }
    if (bipc_client_connect_unix(c, sock) != 0) {
        return -1;
    }
    return strcmp(mode, "shm") == 0 ? bipc_client_open_shm(c, 0) : 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s unix|tcp|shm SOCKET_PATH TCP_PORT SIZE REQUESTS RECONNECT_EVERY\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    const char *sock = argv[2];
    int port = atoi(argv[3]);
    uint32_t size = (uint32_t)atoi(argv[4]);
    long n = atol(argv[5]);
    long every = atol(argv[6]);
    int shm = strcmp(mode, "shm") == 0;
    unsigned char *req = malloc(size ? size : 1);
    unsigned char resp[65536];
    srandom(42);
    for (uint32_t i = 0; i < size; i++) {
        req[i] = (unsigned char)random();
    }
    bipc_client c;
    if (open_client(&c, mode, sock, port) != 0) {
        fprintf(stderr, "connect failed\n");
        return 1;
    }
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        if (every > 0 && i > 0 && i % every == 0) {
            bipc_client_close(&c);
            if (open_client(&c, mode, sock, port) != 0) {
                fprintf(stderr, "reconnect failed\n");
                return 1;
            }
        }
        ssize_t r = shm ? bipc_client_shm_request(&c, req, size, resp, sizeof(resp))
                        : bipc_client_request(&c, req, size, resp, sizeof(resp));
        if (r != (ssize_t)bipc_counter_response_size(size)) {
            fprintf(stderr, "bad response at %ld: %zd\n", i, r);
            return 1;
        }
    }
    double dt = now_s() - t0;
    bipc_client_close(&c);
    printf("%.0f %.2f\n", (double)n / dt, dt * 1e6 / (double)n);
    free(req);
    return 0;
}
