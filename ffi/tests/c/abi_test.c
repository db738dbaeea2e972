/*
 * The C ABI as a C host uses it, built with the system compiler against
 * libchariot.a (ffi/tests/c_abi.rs builds and runs it). Exit status 0 when
 * every check holds; otherwise the failed checks are printed and it is 1.
 *
 * Each output line is taken either by polling or through the callback;
 * both kinds of engine write into a Log, which the checks search.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chariot.h"

/* How long any awaited line may take: generous, for a loaded 2-core CI
 * machine running a debug build. */
#define PATIENCE_MS 60000

static int failures = 0;

#define CHECK(cond)                                                    \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,     \
                    __LINE__, #cond);                                  \
            failures++;                                                \
        }                                                              \
    } while (0)

#define CHECK_STATUS(call, want)                                           \
    do {                                                                   \
        ChariotStatus got_ = (call);                                       \
        if (got_ != (want)) {                                              \
            fprintf(stderr, "%s:%d: %s gave %s, not %s\n", __FILE__,       \
                    __LINE__, #call, chariot_status_name(got_),            \
                    chariot_status_name(want));                            \
            failures++;                                                    \
        }                                                                  \
    } while (0)

/* ---- A log of output lines, filled by polling or by the callback. ---- */

#define LOG_LINES 8192

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t grew;
    char *lines[LOG_LINES];
    int count;
    /* Set by the callback tests: what calls from inside the callback gave. */
    ChariotEngine self;
    int reentry_checked;
    ChariotStatus inside_set, inside_destroy, inside_send;
} Log;

static void log_init(Log *log) {
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->mu, NULL);
    pthread_cond_init(&log->grew, NULL);
}

static void log_free(Log *log) {
    for (int i = 0; i < log->count; i++) free(log->lines[i]);
    pthread_mutex_destroy(&log->mu);
    pthread_cond_destroy(&log->grew);
}

static void log_add(Log *log, const char *line, size_t len) {
    pthread_mutex_lock(&log->mu);
    if (log->count < LOG_LINES) {
        char *copy = malloc(len + 1);
        memcpy(copy, line, len + 1);
        log->lines[log->count++] = copy;
    }
    pthread_cond_broadcast(&log->grew);
    pthread_mutex_unlock(&log->mu);
}

static int log_count(Log *log) {
    pthread_mutex_lock(&log->mu);
    int n = log->count;
    pthread_mutex_unlock(&log->mu);
    return n;
}

/* The index of the first line at or after `from` that starts with
 * `prefix`, or -1. */
static int log_find(Log *log, const char *prefix, int from) {
    int found = -1;
    pthread_mutex_lock(&log->mu);
    for (int i = from; i < log->count && found < 0; i++)
        if (strncmp(log->lines[i], prefix, strlen(prefix)) == 0) found = i;
    pthread_mutex_unlock(&log->mu);
    return found;
}

static void on_line(void *user, const char *line, size_t len) {
    Log *log = user;
    CHECK(strlen(line) == len);
    /* Once, on the handshake's last line: the calls allowed and refused
     * inside a callback. */
    if (!log->reentry_checked && strcmp(line, "ucciok") == 0) {
        log->reentry_checked = 1;
        log->inside_set = chariot_set_callback(log->self, NULL, NULL);
        log->inside_destroy = chariot_destroy(log->self);
        log->inside_send = chariot_send(log->self, "isready");
    }
    log_add(log, line, len);
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Moves the lines of a polled engine into `log` until none comes for
 * `wait_ms` or polling says something else; returns what it said. */
static ChariotStatus pump(ChariotEngine e, Log *log, uint32_t wait_ms) {
    char buf[4096];
    size_t len = 0;
    ChariotStatus s;
    while ((s = chariot_poll(e, buf, sizeof buf, &len, wait_ms)) == CHARIOT_STATUS_OK) {
        CHECK(strlen(buf) == len);
        log_add(log, buf, len);
    }
    return s;
}

/* Waits for a line starting with `prefix` at or after index `from`;
 * `e` is the engine to poll, or 0 when a callback fills the log. Returns
 * its index, or -1 (a failure) after PATIENCE_MS. */
static int await_line(ChariotEngine e, Log *log, const char *prefix, int from) {
    long long deadline = now_ms() + PATIENCE_MS;
    for (;;) {
        int at = log_find(log, prefix, from);
        if (at >= 0) return at;
        if (now_ms() > deadline) break;
        if (e != 0) {
            ChariotStatus s = pump(e, log, 50);
            if (s != CHARIOT_STATUS_WOULD_BLOCK && log_find(log, prefix, from) < 0) {
                fprintf(stderr, "waiting for '%s': poll gave %s\n", prefix,
                        chariot_status_name(s));
                break;
            }
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
            pthread_mutex_lock(&log->mu);
            pthread_cond_timedwait(&log->grew, &log->mu, &ts);
            pthread_mutex_unlock(&log->mu);
        }
    }
    fprintf(stderr, "no line starting with '%s' came\n", prefix);
    failures++;
    return -1;
}

static ChariotEngine new_engine(Log *callback_log) {
    ChariotEngine e = 0;
    CHECK_STATUS(chariot_new(callback_log ? on_line : NULL, callback_log, &e),
                 CHARIOT_STATUS_OK);
    CHECK(e != 0);
    if (callback_log) callback_log->self = e;
    return e;
}

/* ---- The checks. ---- */

static void names_and_version(void) {
    CHECK(strlen(chariot_version()) > 0);
    CHECK(strcmp(chariot_status_name(CHARIOT_STATUS_OK), "CHARIOT_STATUS_OK") == 0);
    CHECK(strcmp(chariot_status_name(CHARIOT_STATUS_INVALID_HANDLE),
                 "CHARIOT_STATUS_INVALID_HANDLE") == 0);
    CHECK(strcmp(chariot_status_name(-1), "CHARIOT_STATUS_UNKNOWN") == 0);
    CHECK(strcmp(chariot_status_name(11), "CHARIOT_STATUS_UNKNOWN") == 0);
}

/* Handshakes, isready and a search, polling. */
static void handshake_and_search(void) {
    Log log;
    log_init(&log);
    ChariotEngine e = new_engine(NULL);
    CHECK_STATUS(chariot_send(e, "ucci"), CHARIOT_STATUS_OK);
    int at = await_line(e, &log, "ucciok", 0);
    CHECK(log_find(&log, "id name Chariot", 0) >= 0);
    CHECK_STATUS(chariot_send(e, "isready\n"), CHARIOT_STATUS_OK);
    at = await_line(e, &log, "readyok", at + 1);
    CHECK_STATUS(chariot_send(e, "uci\r\n"), CHARIOT_STATUS_OK);
    at = await_line(e, &log, "uciok", at + 1);
    CHECK_STATUS(chariot_send(e, "position startpos moves h2e2\ngo depth 5"),
                 CHARIOT_STATUS_OK);
    at = await_line(e, &log, "bestmove ", at + 1);
    if (at >= 0) {
        /* An ICCS move for Black: four characters, from a Black square. */
        const char *move = log.lines[at] + strlen("bestmove ");
        CHECK(strlen(move) >= 4 && move[1] >= '5' && move[1] <= '9');
    }
    CHECK(log_find(&log, "info depth 5", 0) >= 0);
    /* Nothing else is waiting. */
    char buf[64];
    size_t len = 0;
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, &len, 0), CHARIOT_STATUS_WOULD_BLOCK);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    log_free(&log);
}

/* `stop` ends `go infinite`; the callback gets the lines, and calls from
 * inside it behave as documented. */
static void stop_infinite_with_callback(void) {
    Log log;
    log_init(&log);
    ChariotEngine e = new_engine(&log);
    CHECK_STATUS(chariot_send(e, "ucci"), CHARIOT_STATUS_OK);
    int at = await_line(0, &log, "ucciok", 0);
    /* The callback's own `isready` is answered. */
    await_line(0, &log, "readyok", at + 1);
    CHECK(log.reentry_checked);
    CHECK(log.inside_set == CHARIOT_STATUS_IN_CALLBACK);
    CHECK(log.inside_destroy == CHARIOT_STATUS_IN_CALLBACK);
    CHECK(log.inside_send == CHARIOT_STATUS_OK);
    /* Polling takes nothing while a callback is set. */
    char buf[64];
    size_t len = 0;
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, &len, 0), CHARIOT_STATUS_WOULD_BLOCK);

    CHECK_STATUS(chariot_send(e, "go infinite"), CHARIOT_STATUS_OK);
    at = await_line(0, &log, "info depth 3", at + 1);
    CHECK(log_find(&log, "bestmove", 0) < 0);
    CHECK_STATUS(chariot_send(e, "stop"), CHARIOT_STATUS_OK);
    at = await_line(0, &log, "bestmove ", at + 1);
    CHECK_STATUS(chariot_send(e, "isready"), CHARIOT_STATUS_OK);
    await_line(0, &log, "readyok", at + 1);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    log_free(&log);
}

/* Two engines, one polled (UCI) and one with a callback (UCCI), driven
 * in turn: each gets its own answers and nothing of the other's. */
static void two_engines_side_by_side(void) {
    Log a_log, b_log;
    log_init(&a_log);
    log_init(&b_log);
    ChariotEngine a = new_engine(NULL);
    ChariotEngine b = new_engine(&b_log);
    CHECK(a != b);
    CHECK_STATUS(chariot_send(a, "uci"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(b, "ucci"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(a, "setoption name Hash value 8"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(b, "setoption hashsize 4"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(a, "position startpos\ngo depth 5"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(b, "position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w\ngo depth 4"),
                 CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(a, "isready"), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(b, "isready"), CHARIOT_STATUS_OK);
    int a_best = await_line(a, &a_log, "bestmove ", 0);
    int b_best = await_line(0, &b_log, "bestmove ", 0);
    await_line(a, &a_log, "readyok", 0);
    await_line(0, &b_log, "readyok", 0);
    CHECK(a_best >= 0 && b_best >= 0);
    CHECK(log_find(&a_log, "uciok", 0) >= 0 && log_find(&a_log, "ucciok", 0) < 0);
    CHECK(log_find(&b_log, "ucciok", 0) >= 0 && log_find(&b_log, "uciok", 0) < 0);
    /* UCI search lines carry `seldepth`, UCCI ones never. */
    CHECK(log_find(&a_log, "info depth 1 seldepth", 0) >= 0);
    CHECK(log_find(&b_log, "info depth 1 score", 0) >= 0);
    /* Red has only a rook and a king, both on the e file. */
    if (b_best >= 0) CHECK(strncmp(b_log.lines[b_best], "bestmove e", 10) == 0);
    CHECK_STATUS(chariot_destroy(b), CHARIOT_STATUS_OK);
    /* Destroying one leaves the other running. */
    int before = log_count(&a_log);
    CHECK_STATUS(chariot_send(a, "isready"), CHARIOT_STATUS_OK);
    await_line(a, &a_log, "readyok", before);
    CHECK_STATUS(chariot_destroy(a), CHARIOT_STATUS_OK);
    log_free(&a_log);
    log_free(&b_log);
}

/* Destroy while searching: infinite, and a batch-mode search that would
 * not take `quit`. The callback is never called after destroy returns. */
static void destroy_during_search(void) {
    Log log;
    log_init(&log);
    ChariotEngine e = new_engine(&log);
    CHECK_STATUS(chariot_send(e, "uci\ngo infinite"), CHARIOT_STATUS_OK);
    await_line(0, &log, "info depth 2", 0);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    int after = log_count(&log);
    struct timespec pause = {0, 200 * 1000000L};
    nanosleep(&pause, NULL);
    CHECK(log_count(&log) == after);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_send(e, "stop"), CHARIOT_STATUS_INVALID_HANDLE);

    Log batch_log;
    log_init(&batch_log);
    ChariotEngine f = new_engine(NULL);
    CHECK_STATUS(chariot_send(f, "setoption batch true\ngo depth 60\nisready"),
                 CHARIOT_STATUS_OK);
    await_line(f, &batch_log, "info depth 2", 0);
    CHECK_STATUS(chariot_destroy(f), CHARIOT_STATUS_OK);
    /* The queued `isready` was never answered. */
    CHECK(log_find(&batch_log, "readyok", 0) < 0);
    log_free(&log);
    log_free(&batch_log);
}

/* A poll waiting without limit is woken when another thread destroys
 * the engine. */
static void *poll_forever(void *engine) {
    char buf[64];
    size_t len = 0;
    ChariotStatus *s = malloc(sizeof *s);
    *s = chariot_poll(*(ChariotEngine *)engine, buf, sizeof buf, &len, CHARIOT_POLL_FOREVER);
    return s;
}

static void destroy_wakes_a_waiting_poll(void) {
    ChariotEngine e = new_engine(NULL);
    pthread_t waiter;
    pthread_create(&waiter, NULL, poll_forever, &e);
    struct timespec pause = {0, 100 * 1000000L};
    nanosleep(&pause, NULL);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    void *result = NULL;
    pthread_join(waiter, &result);
    CHECK(*(ChariotStatus *)result == CHARIOT_STATUS_INVALID_HANDLE);
    free(result);
}

/* Every misuse gets its status and leaves the engine as it was. */
static void misuse(void) {
    Log log;
    log_init(&log);
    char buf[256];
    size_t len = 0;

    CHECK_STATUS(chariot_new(NULL, NULL, NULL), CHARIOT_STATUS_NULL_POINTER);
    /* Null and invented handles. */
    CHECK_STATUS(chariot_send(0, "isready"), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_send(987654321u, "isready"), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_poll(0, buf, sizeof buf, &len, 0), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_set_callback(0, NULL, NULL), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_destroy(0), CHARIOT_STATUS_INVALID_HANDLE);

    ChariotEngine e = new_engine(NULL);
    /* Null pointers. */
    CHECK_STATUS(chariot_send(e, NULL), CHARIOT_STATUS_NULL_POINTER);
    CHECK_STATUS(chariot_send_len(e, NULL, 0), CHARIOT_STATUS_NULL_POINTER);
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, NULL, 0), CHARIOT_STATUS_NULL_POINTER);
    CHECK_STATUS(chariot_poll(e, NULL, 10, &len, 0), CHARIOT_STATUS_NULL_POINTER);
    /* Text that is not UTF-8 or holds a NUL, and an overlong line: refused
     * whole, so the `isready` before the bad part is not answered. */
    CHECK_STATUS(chariot_send(e, "isready\n\xff\xfe"), CHARIOT_STATUS_INVALID_TEXT);
    CHECK_STATUS(chariot_send_len(e, "isready\0quit", 12), CHARIOT_STATUS_INVALID_TEXT);
    size_t huge = (1u << 20) + 10;
    char *long_line = malloc(huge + 1);
    memcpy(long_line, "isready\n", 8);
    memset(long_line + 8, 'x', huge - 8);
    long_line[huge] = '\0';
    CHECK_STATUS(chariot_send(e, long_line), CHARIOT_STATUS_LINE_TOO_LONG);
    free(long_line);
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, &len, 200), CHARIOT_STATUS_WOULD_BLOCK);
    /* A line without any terminator, by length: the bytes after `len` are
     * not read. */
    CHECK_STATUS(chariot_send_len(e, "isreadyGARBAGE", 7), CHARIOT_STATUS_OK);
    /* Too small a buffer: the length is reported and the line stays. */
    len = 0;
    long long deadline = now_ms() + PATIENCE_MS;
    ChariotStatus s;
    while ((s = chariot_poll(e, NULL, 0, &len, 50)) == CHARIOT_STATUS_WOULD_BLOCK &&
           now_ms() < deadline) {
    }
    CHECK(s == CHARIOT_STATUS_BUFFER_TOO_SMALL && len == 7);
    CHECK_STATUS(chariot_poll(e, buf, 7, &len, 0), CHARIOT_STATUS_BUFFER_TOO_SMALL);
    CHECK_STATUS(chariot_poll(e, buf, 8, &len, 0), CHARIOT_STATUS_OK);
    CHECK(len == 7 && strcmp(buf, "readyok") == 0);
    /* Several lines in one call, with every kind of line end. */
    CHECK_STATUS(chariot_send(e, "isready\r\nisready\risready"), CHARIOT_STATUS_OK);
    int at = await_line(e, &log, "readyok", 0);
    at = await_line(e, &log, "readyok", at + 1);
    await_line(e, &log, "readyok", at + 1);
    /* Unknown and malformed commands are diagnostics, not errors. */
    CHECK_STATUS(chariot_send(e, "ucci\nfly to the moon\nposition fen xyz"), CHARIOT_STATUS_OK);
    await_line(e, &log, "info string unknown command: fly", 0);
    await_line(e, &log, "info string position rejected", 0);
    /* Lines after `quit` in the same text are not sent; later sends are
     * refused; the last lines can still be taken, then the end is said. */
    CHECK_STATUS(chariot_send(e, "isready\nquit\nisready"), CHARIOT_STATUS_SESSION_ENDED);
    CHECK_STATUS(chariot_send(e, "isready"), CHARIOT_STATUS_SESSION_ENDED);
    CHECK_STATUS(chariot_send(e, ""), CHARIOT_STATUS_SESSION_ENDED);
    int before = log_count(&log);
    CHECK(pump(e, &log, PATIENCE_MS) == CHARIOT_STATUS_SESSION_ENDED);
    CHECK(log_count(&log) == before + 2);
    CHECK(log_find(&log, "readyok", before) == before);
    CHECK(log_find(&log, "bye", before) == before + 1);
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, &len, 0), CHARIOT_STATUS_SESSION_ENDED);
    /* After destroy, every call says the handle is gone. */
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_send(e, "isready"), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_send_len(e, "isready", 7), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_poll(e, buf, sizeof buf, &len, 0), CHARIOT_STATUS_INVALID_HANDLE);
    CHECK_STATUS(chariot_set_callback(e, on_line, &log), CHARIOT_STATUS_INVALID_HANDLE);
    /* A new engine never gets an old handle back. */
    ChariotEngine f = new_engine(NULL);
    CHECK(f != e);
    CHECK_STATUS(chariot_destroy(f), CHARIOT_STATUS_OK);
    log_free(&log);
}

/* Switching between polling and a callback loses no line. */
static void switching_delivery(void) {
    Log log;
    log_init(&log);
    ChariotEngine e = new_engine(NULL);
    CHECK_STATUS(chariot_send(e, "isready\nisready"), CHARIOT_STATUS_OK);
    /* Both answers are queued before the callback is set. */
    await_line(e, &log, "readyok", 0);
    CHECK(log_count(&log) >= 1);
    int polled = log_count(&log);
    CHECK_STATUS(chariot_set_callback(e, on_line, &log), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(e, "isready"), CHARIOT_STATUS_OK);
    long long deadline = now_ms() + PATIENCE_MS;
    while (log_count(&log) < 3 && now_ms() < deadline) {
        struct timespec pause = {0, 10 * 1000000L};
        nanosleep(&pause, NULL);
    }
    CHECK(polled <= 2 && log_count(&log) == 3);
    CHECK_STATUS(chariot_set_callback(e, NULL, NULL), CHARIOT_STATUS_OK);
    CHECK_STATUS(chariot_send(e, "isready"), CHARIOT_STATUS_OK);
    await_line(e, &log, "readyok", 3);
    CHECK(log_count(&log) == 4);
    CHECK_STATUS(chariot_destroy(e), CHARIOT_STATUS_OK);
    log_free(&log);
}

int main(void) {
    names_and_version();
    handshake_and_search();
    stop_infinite_with_callback();
    two_engines_side_by_side();
    destroy_during_search();
    destroy_wakes_a_waiting_poll();
    misuse();
    switching_delivery();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all C ABI checks passed (%s)\n", chariot_version());
    return 0;
}
