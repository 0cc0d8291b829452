#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "CFutex.h"

// Not FUTEX_PRIVATE_FLAG anywhere: the words live in a file mapping other processes share.

int sk_futex_wait_shared(uint32_t *word, uint32_t expected, int timeout_ms) {
    struct timespec timeout = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L };
    return (int)syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
}

int sk_futex_add_shared(uint32_t *word, int32_t delta, int wake) {
    // FUTEX_WAKE_OP: the kernel adds `delta` to the word atomically, then wakes up to `wake`
    // sleepers on it (the second word is the same one, and wakes none). Its operand is 12 bits.
    if (delta < -2048 || delta > 2047) {
        errno = EINVAL;
        return -1;
    }
    uint32_t operation = FUTEX_OP(FUTEX_OP_ADD, delta, FUTEX_OP_CMP_EQ, 0);
    return (int)syscall(SYS_futex, word, FUTEX_WAKE_OP, wake, (unsigned long)0, word, operation);
}

int sk_futex_equals_shared(uint32_t *word, uint32_t value) {
    // A wait that times out at once: the kernel compares atomically, and says EAGAIN when the
    // word differs, ETIMEDOUT when it was equal.
    struct timespec now = { 0, 0 };
    while (1) {
        int result = (int)syscall(SYS_futex, word, FUTEX_WAIT, value, &now, NULL, 0);
        if (result == 0) return 1;  // woken while equal
        if (errno == ETIMEDOUT) return 1;
        if (errno == EAGAIN) return 0;
        if (errno != EINTR) return -1;
    }
}
