// Which frames of an allocation context a person wants to read. The allocator and the
// standard library's containers sit between every allocation and the program's own code
// (operator new <- std::__new_allocator<...>::allocate <- std::vector<...>::_M_realloc_insert
// <- ...); reports fold such runs into one line, as pprof's and heaptrack's views do, and
// shorten long C++ names by eliding template arguments instead of cutting them at a width.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes/expected.h"
#include "report/heap_profile.h"

namespace profkit::report {

// The frames `profkit report` folds by default (a regex over demangled function names):
// operator new/delete and malloc's family, libstdc++'s allocators, allocator traits and
// container internals (std::vector, std::basic_string, hash tables, trees, deques,
// shared_ptr control blocks, make_unique/make_shared), and glibc internals.
extern const char* const kDefaultHiddenFrames;

class FrameFilter {
 public:
  // Folds nothing (--show-all-frames).
  FrameFilter() = default;
  // Folds frames whose qualified name (qualified_name: no return type, no parameters)
  // matches `regex` (ECMAScript syntax, searched anywhere; anchor with ^ as needed). Fails with a one-line message for a bad regex.
  static Expected<FrameFilter> hiding(const std::string& regex);
  static FrameFilter defaults();

  bool folds(const HeapFrame& frame) const;

  // One line of a context's chain: a frame, or a run of `folded` consecutive folded frames.
  struct Item {
    const HeapFrame* frame = nullptr;  // null for a folded run
    size_t folded = 0;
  };
  // The chain leaf first with runs of folded frames collapsed. A context whose every frame
  // would be folded is shown whole (nothing else would be left to read).
  std::vector<Item> fold(const std::vector<HeapFrame>& frames) const;
  // Index of the first frame not folded (the allocation site a person looks for); 0 when
  // every frame would be folded.
  size_t site_index(const std::vector<HeapFrame>& frames) const;

 private:
  std::shared_ptr<const std::regex> regex_;
};

// The qualified name of a demangled function: without the return type demanglers print
// before template specializations ("void std::vector<int>::_M_realloc_insert<int>(...)"),
// without the parameter list and what follows it. What --hide-frames matches.
std::string_view qualified_name(std::string_view name);

// A C++ name with template argument lists elided and the parameter list dropped:
// "std::vector<std::pair<int, long>, std::allocator<...> >::_M_realloc_insert<int>(...)"
// -> "std::vector<...>::_M_realloc_insert<...>". Operators keep their symbols ("operator<",
// "operator new[]"). Names without templates or parameters are returned as they are.
std::string short_function_name(std::string_view name);

}  // namespace profkit::report
