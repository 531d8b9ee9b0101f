/*
 * The reference publisher of bench/nats/run.php: the NATS C client (Debian's libnats-dev)
 * publishes COUNT messages of SIZE bytes to SUBJECT, flushes, and prints
 * "SECONDS CPU_SECONDS" (wall time and this process's user+sys time, from the first publish to
 * the flush's PONG).
 *
 *   gcc -O2 -o pub bench/nats/pub.c -lnats && ./pub nats://127.0.0.1:4222 bench.pub 200000 16
 */
#include <nats/nats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s URL SUBJECT COUNT SIZE\n", argv[0]);
        return 2;
    }
    long count = atol(argv[3]);
    int size = atoi(argv[4]);
    char *payload = malloc(size > 0 ? size : 1);
    memset(payload, 'x', size > 0 ? size : 1);
    natsConnection *nc = NULL;
    natsStatus s = natsConnection_ConnectTo(&nc, argv[1]);
    if (s != NATS_OK) {
        fprintf(stderr, "connect: %s\n", natsStatus_GetText(s));
        return 1;
    }
    double started = now(), cpuStarted = cpu();
    for (long i = 0; i < count && s == NATS_OK; i++) {
        s = natsConnection_Publish(nc, argv[2], payload, size);
    }
    if (s == NATS_OK) {
        s = natsConnection_FlushTimeout(nc, 30000);
    }
    double elapsed = now() - started, cpuUsed = cpu() - cpuStarted;
    if (s != NATS_OK) {
        fprintf(stderr, "publish: %s\n", natsStatus_GetText(s));
        return 1;
    }
    printf("%.6f %.6f\n", elapsed, cpuUsed);
    natsConnection_Destroy(nc);
    nats_Close();
    free(payload);
    return 0;
}
