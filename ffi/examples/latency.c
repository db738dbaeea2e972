/*
 * Latencies through the C library, for docs/lab/measurements.md ("Protocol
 * latency"): prints figures, asserts nothing. Build and run against the
 * release library:
 *
 *   cargo build --release
 *   cc -O2 -I ffi/include ffi/examples/latency.c target/release/libchariot.a \
 *      -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o target/release/latency
 *   target/release/latency
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "chariot.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Polls until a line starting with `prefix`. */
static void await_line(ChariotEngine e, const char *prefix) {
    char line[4096];
    size_t len;
    while (chariot_poll(e, line, sizeof line, &len, CHARIOT_POLL_FOREVER) == CHARIOT_STATUS_OK)
        if (strncmp(line, prefix, strlen(prefix)) == 0) return;
}

/* Mean and worst of `n` timings, in ms. */
static void report(const char *what, const double *ms, int n) {
    double sum = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        sum += ms[i];
        if (ms[i] > worst) worst = ms[i];
    }
    printf("%s: mean %.3f ms, worst %.3f ms (%d)\n", what, sum / n, worst, n);
}

int main(void) {
    static double ms[1000];
    ChariotEngine e;
    chariot_new(NULL, NULL, &e);
    for (int i = 0; i < 1000; i++) {
        double start = now_ms();
        chariot_send(e, "isready");
        await_line(e, "readyok");
        ms[i] = now_ms() - start;
    }
    report("isready -> readyok, idle", ms, 1000);

    chariot_send(e, "go infinite");
    await_line(e, "info depth 8");
    for (int i = 0; i < 100; i++) {
        double start = now_ms();
        chariot_send(e, "isready");
        await_line(e, "readyok");
        ms[i] = now_ms() - start;
    }
    report("isready -> readyok, searching", ms, 100);

    struct timespec pause = {0, 300 * 1000000L};
    for (int i = 0; i < 20; i++) {
        nanosleep(&pause, NULL);
        double start = now_ms();
        chariot_send(e, "stop");
        await_line(e, "bestmove");
        ms[i] = now_ms() - start;
        chariot_send(e, "go infinite");
    }
    report("stop -> bestmove, 0.3 s into go infinite", ms, 20);
    chariot_destroy(e);

    for (int i = 0; i < 20; i++) {
        chariot_new(NULL, NULL, &e);
        /* Half infinite with a 256 MB table, half a batch-mode depth 60
         * (which would not take `quit`). */
        chariot_send(e, i % 2 ? "setoption batch true\ngo depth 60"
                              : "setoption name Hash value 256\ngo infinite");
        await_line(e, "info depth 8");
        double start = now_ms();
        chariot_destroy(e);
        ms[i] = now_ms() - start;
    }
    report("chariot_destroy during a search", ms, 20);

    for (int i = 0; i < 20; i++) {
        double start = now_ms();
        chariot_new(NULL, NULL, &e);
        chariot_send(e, "isready");
        await_line(e, "readyok");
        chariot_destroy(e);
        ms[i] = now_ms() - start;
    }
    report("chariot_new + isready + chariot_destroy, 16 MB table", ms, 20);
    return 0;
}
