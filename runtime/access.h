// access.cc's libc replacements (memcpy, strlen, ...): counting versions for instrumented
// programs, libc's own for the others.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

namespace profkit::rt {

// The index of the first byte where `a` and `b` differ or `a` ends (its NUL), or `limit`
// if that comes first: what strcmp and strncmp read up to, so what they count. 16 bytes at
// a time wherever neither load reaches into the next page (a string that ends just before
// an unmapped page is readable only up to the end of its own), else a byte. The byte loop
// it replaces was 60% of a qsort of heap paths with strcmp (23-byte common prefixes).
inline size_t first_difference(const char* a, const char* b, size_t limit) {
  constexpr uintptr_t kPage = 4096, kLast = kPage - 16;
  size_t i = 0;
  while (i < limit) {
    const auto pa = reinterpret_cast<uintptr_t>(a + i), pb = reinterpret_cast<uintptr_t>(b + i);
    if ((pa & (kPage - 1)) <= kLast && (pb & (kPage - 1)) <= kLast) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
      const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      const auto same = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
      const auto nul = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())));
      const unsigned stop = (~same & 0xffffu) | nul;
      if (stop != 0) {
        const size_t k = i + static_cast<size_t>(__builtin_ctz(stop));
        return k < limit ? k : limit;
      }
      i += 16;
    } else {
      if (a[i] == '\0' || a[i] != b[i]) return i;
      ++i;
    }
  }
  return limit;
}

// The index of the first byte of `s` that is `ch` or its NUL, or `limit` if that comes
// first: what strchr reads up to (and with ch 0, strlen and strnlen). As first_difference:
// 16 bytes at a time where the load stays in its page.
inline size_t first_of(const char* s, char ch, size_t limit = SIZE_MAX) {
  constexpr uintptr_t kPage = 4096, kLast = kPage - 16;
  const __m128i want = _mm_set1_epi8(ch);
  size_t i = 0;
  while (i < limit) {
    if ((reinterpret_cast<uintptr_t>(s + i) & (kPage - 1)) <= kLast) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const auto stop = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmpeq_epi8(x, want), _mm_cmpeq_epi8(x, _mm_setzero_si128()))));
      if (stop != 0) {
        const size_t k = i + static_cast<size_t>(__builtin_ctz(stop));
        return k < limit ? k : limit;
      }
      i += 16;
    } else {
      if (s[i] == ch || s[i] == '\0') return i;
      ++i;
    }
  }
  return limit;
}

// The index of the NUL of `s`, with the index of the last `ch` up to it (the NUL itself for
// ch 0; SIZE_MAX if there is none) in *last: what strrchr reads and returns. As first_of.
inline size_t last_of(const char* s, char ch, size_t* last) {
  constexpr uintptr_t kPage = 4096, kLast = kPage - 16;
  const __m128i want = _mm_set1_epi8(ch);
  size_t found = SIZE_MAX, i = 0;
  for (;;) {
    if ((reinterpret_cast<uintptr_t>(s + i) & (kPage - 1)) <= kLast) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      auto match = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, want)));
      const auto nul = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())));
      if (nul != 0) match &= ((nul & -nul) << 1) - 1;  // up to the first NUL, included
      if (match != 0) found = i + 31 - static_cast<size_t>(__builtin_clz(match));
      if (nul != 0) {
        *last = found;
        return i + static_cast<size_t>(__builtin_ctz(nul));
      }
      i += 16;
    } else {
      if (s[i] == ch) found = i;
      if (s[i] == '\0') {
        *last = found;
        return i;
      }
      ++i;
    }
  }
}

// At start-up, after g.count_libc_accesses is decided: when it is false, the replacements
// go straight to libc's functions from now on.
void call_libc_directly();

}  // namespace profkit::rt
