#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "CFutex.h"

int sk_futex_wait_shared(uint32_t *word, uint32_t expected, int timeout_ms) {
    struct timespec timeout = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L };
    // Not FUTEX_PRIVATE_FLAG: the word lives in a file mapping other processes share.
    return (int)syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
}

int sk_futex_wake_shared(uint32_t *word, int count) {
    return (int)syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
}

uint32_t sk_atomic_load_u32(uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

uint32_t sk_atomic_add_u32(uint32_t *word, int32_t delta) {
    return __atomic_add_fetch(word, (uint32_t)delta, __ATOMIC_SEQ_CST);
}
