#ifndef CFUTEX_H
#define CFUTEX_H

#include <stdint.h>

/// Futexes on memory shared between processes (a MAP_SHARED mapping of one file), and the
/// atomic operations on it. The futex(2) system call has no glibc wrapper Swift can see, and
/// Swift's atomics cannot be placed at an address in such a mapping.

/// Sleeps while `*word == expected`, for at most `timeout_ms` milliseconds: 0 when woken, -1
/// with errno set otherwise (EAGAIN: the word had changed already; ETIMEDOUT; EINTR).
int sk_futex_wait_shared(uint32_t *word, uint32_t expected, int timeout_ms);

/// Wakes at most `count` of the processes and threads sleeping on `word`; returns how many, or
/// -1 with errno.
int sk_futex_wake_shared(uint32_t *word, int count);

/// `*word`, read atomically (sequentially consistent).
uint32_t sk_atomic_load_u32(uint32_t *word);

/// Adds `delta` to `*word` atomically (sequentially consistent) and returns the new value.
uint32_t sk_atomic_add_u32(uint32_t *word, int32_t delta);

#endif
