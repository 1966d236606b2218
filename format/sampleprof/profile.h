// The sample-profile model (AutoFDO and CSSPGO profiles, as `clang -fprofile-sample-use`
// reads them): per function, samples per source line (line offset from the function's start
// plus discriminator, or a pseudo-probe index), call targets seen at each line, inlined
// callees as nested profiles, and for CSSPGO a calling context per profile. The readers
// and writers beside this file convert it from and to the text, binary and extbinary
// encodings; docs/formats/sampleprof.md describes them.
//
// Orders and keys follow LLVM exactly, because they decide output bytes: names compare as
// MD5 ids before strings and strings byte-wise; the profile map is a libstdc++
// unordered_map keyed by the MD5 of the name (or a hash of the context frames), whose
// iteration order is visible in extbinary FuncMetadata and in tie orders of `show`.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/sampleprof/flat_map.h"

namespace profkit::sampleprof {

// A function name: a string, or an MD5 id (from an MD5 name table) when `name` is null.
struct FunctionId {
  std::string_view name{"", 0};  // .data() == nullptr: MD5 form
  uint64_t md5 = 0;

  FunctionId() = default;
  explicit FunctionId(std::string_view n) : name(n.data() ? n : std::string_view("", 0)) {}
  static FunctionId from_md5(uint64_t v) {
    FunctionId id;
    id.name = std::string_view();
    id.md5 = v;
    return id;
  }
  bool is_md5() const { return name.data() == nullptr; }
  bool empty() const { return !is_md5() && name.empty(); }
  // The 64-bit key LLVM hashes a name to: MD5 of the string, or the MD5 id itself.
  uint64_t hash() const;
  // The name as printed: the string, or the MD5 id in decimal.
  std::string str() const;
  void append_to(std::string& out) const;
};

// MD5 ids first (numerically), then strings byte-wise (shorter prefix first).
int compare(const FunctionId& a, const FunctionId& b);
inline bool operator==(const FunctionId& a, const FunctionId& b) {
  if (a.is_md5() || b.is_md5()) return a.is_md5() == b.is_md5() && a.md5 == b.md5;
  return a.name.size() == b.name.size() &&
         (a.name.data() == b.name.data() || a.name == b.name);
}
inline bool operator<(const FunctionId& a, const FunctionId& b) { return compare(a, b) < 0; }
struct FunctionIdLess {
  bool operator()(const FunctionId& a, const FunctionId& b) const { return compare(a, b) < 0; }
};

// A line offset from the function's first line (or a probe index) and a discriminator.
struct LineLocation {
  uint32_t line = 0;
  uint32_t discriminator = 0;
  friend auto operator<=>(const LineLocation&, const LineLocation&) = default;
  // LLVM's hash of a location, used in context keys.
  uint64_t hash() const { return (uint64_t{discriminator} << 32) | line; }
  void append_to(std::string& out) const;  // "LINE" or "LINE.DISC"
};

// Samples at one line, with the call targets seen there (unique names, any order; writers
// sort them by count descending, then name).
struct SampleRecord {
  uint64_t samples = 0;
  std::vector<std::pair<FunctionId, uint64_t>> targets;

  // Sorted for output: count descending, then FunctionId ascending.
  std::vector<std::pair<FunctionId, uint64_t>> sorted_targets() const;
};

// One frame of a calling context: the function and, except for the leaf, the location of
// the call in it.
struct Frame {
  FunctionId name;
  LineLocation location;
  friend bool operator==(const Frame& a, const Frame& b) {
    return a.name == b.name && a.location == b.location;
  }
};

// Context attributes (bits of `!Attributes:`).
enum Attribute : uint32_t {
  kContextWasInlined = 1,
  kContextShouldBeInlined = 2,
  kContextDuplicatedIntoBase = 4,
};

// Outcome of adding counts: LLVM saturates at 2^64-1 and reports "Counter overflow"; a
// profile whose checksum differs is not merged at all.
enum class MergeResult { ok, counter_overflow, hash_mismatch };
inline void note(MergeResult& into, MergeResult r) {
  if (into == MergeResult::ok) into = r;
}
// a + b * w, saturating; sets `overflow` when it saturates.
uint64_t saturating_add_mul(uint64_t a, uint64_t b, uint64_t w, MergeResult& result);

// Inlinees nested deeper than this are refused by every reader (real profiles stay far
// below; the limit keeps the recursion of merging and writing bounded on hostile input).
inline constexpr uint32_t kMaxInlineDepth = 1000;

struct FunctionSamples;
using CalleeMap = std::map<FunctionId, FunctionSamples, FunctionIdLess>;

struct FunctionSamples {
  FunctionId name;                 // the function (leaf of the context)
  std::vector<Frame> context;      // CS profiles: root first, leaf last; empty otherwise
  uint32_t attributes = 0;
  uint64_t total = 0;              // samples in the function including inlinees
  uint64_t head = 0;               // entry samples (top-level profiles)
  uint64_t checksum = 0;           // `!CFGChecksum` of probe-based profiles, 0 = none
  FlatMap<LineLocation, SampleRecord> body;
  std::map<LineLocation, CalleeMap> callsites;
  // vtable type counts per call location (LLVM 22 text `vtables` lines).
  std::map<LineLocation, std::map<FunctionId, uint64_t, FunctionIdLess>> vtables;

  bool has_context() const { return !context.empty(); }
  // The key LLVM's profile map uses for this profile.
  uint64_t key() const;
  // "name", or for CS profiles "main:3 @ foo" (no brackets).
  std::string context_string() const;

  MergeResult add_body(LineLocation loc, uint64_t n, uint64_t weight = 1);
  MergeResult add_target(LineLocation loc, FunctionId target, uint64_t n, uint64_t weight = 1);
  // `this += other * weight` with LLVM's rules (see merge_into in profile.cc).
  MergeResult merge(const FunctionSamples& other, uint64_t weight = 1);

  // LLVM's estimate of the entry count (show --hot-func-list, layout conversions).
  uint64_t head_estimate(bool profile_is_cs) const;
  // The largest body count in this profile and its inlinees.
  uint64_t max_body_samples() const;
};

// Calls fn(location, inlinee) for every inlinee of `f`, in location then name order.
template <class Fn>
void for_each_inlinee(const FunctionSamples& f, Fn fn) {
  for (const auto& [loc, callees] : f.callsites)
    for (const auto& [name, inlinee] : callees) fn(loc, inlinee);
}

// How many inlinees `f` has (at all locations).
inline uint64_t inlinee_count(const FunctionSamples& f) {
  uint64_t n = 0;
  for (const auto& [loc, callees] : f.callsites) n += callees.size();
  return n;
}

// Order of contexts: frame by frame (name, then location), a prefix first; context-less
// profiles by name.
bool context_less(const FunctionSamples& a, const FunctionSamples& b);

// The key of a CS context (LLVM's hash_combine over the frames).
uint64_t context_key(const std::vector<Frame>& frames);

struct SummaryEntry {
  uint64_t cutoff = 0;
  uint64_t min_count = 0;
  uint64_t num_counts = 0;
};

struct Summary {
  uint64_t total_count = 0;
  uint64_t max_count = 0;
  uint64_t max_function_count = 0;
  uint64_t num_counts = 0;
  uint64_t num_functions = 0;
  std::vector<SummaryEntry> detailed;
};

enum class Format { text, binary, extbinary };

struct SectionHeader {
  uint64_t type = 0, flags = 0, offset = 0, size = 0;
};

// A whole profile. `functions` iterates in the order LLVM's map does for the same
// insertions; `order` is not kept: writers sort (sorted_functions).
struct Profile {
  std::unordered_map<uint64_t, FunctionSamples> functions;
  bool is_cs = false;
  bool is_probe_based = false;
  bool is_preinlined = false;
  bool is_fs = false;
  std::vector<std::string_view> symbol_list;
  Summary summary;                // as stored (binary) or computed (text)
  Format format = Format::text;
  std::vector<SectionHeader> sections;  // extbinary, as read
  // Bytes the names point into (input buffers, decompressed sections, owned strings).
  std::vector<std::shared_ptr<const void>> storage;

  // Keeps a copy of `s` alive as long as the profile and returns a view of it.
  std::string_view own(std::string s);
  // Adopts another profile's storage (after merging it in).
  void adopt_storage(const Profile& other);
};

// The top-level profiles in output order: total samples descending, then context order.
std::vector<const FunctionSamples*> sorted_functions(const Profile& profile);

// The summary of a profile as LLVM computes it (CS profiles: on the flattened profile).
Summary compute_summary(const Profile& profile);
// The summary of the profile made by merging `profiles` (in this order) by leaf name.
Summary flat_summary(const std::vector<const FunctionSamples*>& profiles);

}  // namespace profkit::sampleprof
