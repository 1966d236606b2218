// access.cc's libc replacements (memcpy, strlen, ...): counting versions for instrumented
// programs, libc's own for the others.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

namespace profkit::rt {

// The replacements' scans (strcmp, strncmp, strchr, strrchr find where to stop themselves,
// since that is what they count): 16 bytes at a time wherever the load stays in its page,
// so it reads no page a byte loop would not have (a string that ends just before an
// unmapped page is readable only up to the end of its own), else a byte. The byte loops
// they replace were 60% of a qsort of heap paths with strcmp and made strchr 2.9x
// compiler-rt's overhead (docs/runtime.md).
inline bool load16_in_page(const char* p) {
  constexpr uintptr_t kPage = 4096;
  return (reinterpret_cast<uintptr_t>(p) & (kPage - 1)) <= kPage - 16;
}
inline __m128i load16(const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
// Bit i set where byte i of `x` and `y` are equal.
inline unsigned equal_bytes(__m128i x, __m128i y) {
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
}

// The index of the first byte where `a` and `b` differ or `a` ends (its NUL), or `limit`
// if that comes first: what strcmp and strncmp read up to.
inline size_t first_difference(const char* a, const char* b, size_t limit) {
  size_t i = 0;
  while (i < limit) {
    if (load16_in_page(a + i) && load16_in_page(b + i)) {
      const __m128i x = load16(a + i);
      const unsigned stop = (~equal_bytes(x, load16(b + i)) & 0xffffu) | equal_bytes(x, _mm_setzero_si128());
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

// The index of the first byte of `s` that is `ch` or its NUL: what strchr reads up to.
inline size_t first_of(const char* s, char ch) {
  const __m128i want = _mm_set1_epi8(ch);
  size_t i = 0;
  for (;;) {
    if (load16_in_page(s + i)) {
      const __m128i x = load16(s + i);
      const unsigned stop = equal_bytes(x, want) | equal_bytes(x, _mm_setzero_si128());
      if (stop != 0) return i + static_cast<size_t>(__builtin_ctz(stop));
      i += 16;
    } else {
      if (s[i] == ch || s[i] == '\0') return i;
      ++i;
    }
  }
}

// The index of the NUL of `s`, with the index of the last `ch` up to it (the NUL itself for
// ch 0; SIZE_MAX if there is none) in *last: what strrchr reads and returns.
inline size_t last_of(const char* s, char ch, size_t* last) {
  const __m128i want = _mm_set1_epi8(ch);
  size_t found = SIZE_MAX, i = 0;
  for (;;) {
    if (load16_in_page(s + i)) {
      const __m128i x = load16(s + i);
      unsigned match = equal_bytes(x, want);
      const unsigned nul = equal_bytes(x, _mm_setzero_si128());
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

// libc's own functions, resolved on first use (byte loops until then), never counting:
// for the runtime's own copies and lengths (strdup's).
size_t libc_strlen(const char* s);
size_t libc_strnlen(const char* s, size_t limit);
void* libc_memcpy(void* d, const void* s, size_t n);

// At start-up, after g.count_libc_accesses is decided: when it is false, the replacements
// go straight to libc's functions from now on.
void call_libc_directly();

}  // namespace profkit::rt
