/*
 * The reference subscriber of bench/nats/run.php: the NATS C client (Debian's libnats-dev)
 * subscribes to SUBJECT, flushes (the server has the SUB), prints "ready", then receives COUNT
 * messages (published by bench/nats/pub.c) and prints "SECONDS CPU_SECONDS": wall time and this
 * process's user+sys time from the first message to the last.
 *
 *   gcc -O2 -o sub bench/nats/sub.c -lnats && ./sub nats://127.0.0.1:4222 bench.sub 200000
 */
#include <nats/nats.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (argc != 4) {
        fprintf(stderr, "usage: %s URL SUBJECT COUNT\n", argv[0]);
        return 2;
    }
    long count = atol(argv[3]);
    natsConnection *nc = NULL;
    natsSubscription *sub = NULL;
    natsStatus s = natsConnection_ConnectTo(&nc, argv[1]);
    if (s == NATS_OK) {
        s = natsConnection_SubscribeSync(&sub, nc, argv[2]);
    }
    if (s == NATS_OK) {
        /* No client-side limit: the server's own (max_pending) is the one both clients share. */
        s = natsSubscription_SetPendingLimits(sub, -1, -1);
    }
    if (s == NATS_OK) {
        s = natsConnection_FlushTimeout(nc, 10000);
    }
    if (s != NATS_OK) {
        fprintf(stderr, "subscribe: %s\n", natsStatus_GetText(s));
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    double started = 0, cpuStarted = 0;
    long bytes = 0;
    for (long i = 0; i < count; i++) {
        natsMsg *msg = NULL;
        s = natsSubscription_NextMsg(&msg, sub, 30000);
        if (s != NATS_OK) {
            fprintf(stderr, "message %ld: %s\n", i, natsStatus_GetText(s));
            return 1;
        }
        if (i == 0) {
            started = now();
            cpuStarted = cpu();
        }
        bytes += natsMsg_GetDataLength(msg);
        natsMsg_Destroy(msg);
    }
    printf("%.6f %.6f %ld\n", now() - started, cpu() - cpuStarted, bytes);
    natsSubscription_Destroy(sub);
    natsConnection_Destroy(nc);
    nats_Close();
    return 0;
}
