// Virtual unwinding of hybrid samples (docs/profgen.md, "Context-sensitive profiles"): a
// sample's call stack is the calling context at its newest branch; replaying the branch
// stack backwards (a call pops a frame, a return pushes one, a jump replaces the leaf)
// gives the context of every range and branch in it. The result is a counter per context:
// call-instruction addresses for binaries with pseudo probes (the leaf function is found
// from the probes later), inline-expanded source frames for the others.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/sampleprof/profile.h"
#include "profgen/binary.h"
#include "profgen/counter.h"
#include "profgen/perf_script.h"

namespace profkit::profgen {

struct ContextOptions {
  int32_t compress_recursion = -1;  // --compress-recursion: -1 unlimited, 0 off
  int32_t max_context_depth = -1;   // --csprof-max-context-depth: -1 unlimited
};

// A context's counts. Probe binaries: `addresses` (callers' call instructions, root first).
// Others: `frames` (root first; the leaf frame's location is 0).
struct CsCounter {
  std::vector<uint64_t> addresses;
  std::vector<sampleprof::Frame> frames;
  bool leaf_was_inlined = false;
  SampleCounter counter;
};

struct UnwindStats {
  uint64_t total_branches = 0;
  uint64_t mismatched_prolog_epilog = 0;
  uint64_t mismatched_external_call = 0;
  uint64_t unpaired_external = 0;
  uint64_t paired_external = 0;
  std::set<uint64_t> untracked_call_sites;
};

// Unwinds batches of samples (statistics counted for each distinct sample once); the
// counters of equal contexts are merged.
class ContextUnwinder {
 public:
  ContextUnwinder(ProfiledBinary& binary, const ContextOptions& options, UnwindStats& stats);
  ~ContextUnwinder();
  void add(const std::vector<AggregatedSample>& samples, const std::vector<bool>& first);
  std::vector<CsCounter> take();
  // Adds the functions the generator counts as profiled (a context address, a range start or
  // a branch end in them; indices into binary.functions()), before take().
  void profiled_functions(std::set<uint32_t>& functions) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The key of a context's counter. Probe binaries: `stack` is the callers' call addresses
// (root first), recursion compressed and trimmed. Others: `stack` ends with an address in
// the running function, and the key is the inline-expanded source frames (base
// discriminators; the leaf frame's location 0), compressed and trimmed but for the leaf;
// empty when an address has no line information. Counts are not touched.
void make_context_key(ProfiledBinary& binary, const ContextOptions& options,
                      const std::vector<uint64_t>& stack, CsCounter& key);
// The counters of distinct contexts: the counter of a key, added when new. Keys that
// differ only in leaf_was_inlined are one context (llvm-profgen compares and hashes line
// contexts by their frames only), whose flag is or-ed, as its context trie does.
class ContextCounters {
 public:
  // The index of `key`'s counter in counters(); *added (if given) tells whether it is new.
  size_t find_or_add(const CsCounter& key, bool* added = nullptr);
  std::vector<CsCounter>& counters() { return counters_; }
  const std::vector<CsCounter>& counters() const { return counters_; }
  std::vector<CsCounter> take();

 private:
  std::vector<CsCounter> counters_;
  std::unordered_map<std::string, size_t> index_;
  std::string id_;  // scratch: a key's bytes
};
// Whether two addresses have the same inline callers (their last frames may differ).
bool same_inline_context(ProfiledBinary& binary, uint64_t a, uint64_t b);

// llvm-profgen's unwinder warnings (after the range warnings).
void warn_unwind(const UnwindStats& stats, size_t contexts, const LineSink& warn);

// Deduplicates adjacent repeated sequences of up to `max_size` elements (-1: any size) in
// place, as llvm-profgen compresses recursion in contexts.
template <class T>
void compress_recursion(std::vector<T>& context, int32_t max_size);

// Keeps the last `depth` elements (-1: all).
template <class T>
void trim_context(std::vector<T>& context, int32_t depth) {
  if (depth < 0 || context.size() <= static_cast<size_t>(depth)) return;
  context.erase(context.begin(), context.end() - depth);
}

// The context as the unsymbolized profile prints it: "0xOFF @ 0xOFF" (probe binaries) or
// "main:2.2 @ top:0 @ leaf".
std::string context_text(const CsCounter& c, const ProfiledBinary& binary, OffsetBase base);

}  // namespace profkit::profgen
