#include "format/sampleprof/profile.h"

#include <algorithm>
#include <cstring>

#include "format/bytes/hash.h"
#include "format/bytes/number_text.h"

namespace profkit::sampleprof {

uint64_t FunctionId::hash() const { return is_md5() ? md5 : md5_name_ref(name); }

std::string FunctionId::str() const {
  std::string s;
  append_to(s);
  return s;
}

void FunctionId::append_to(std::string& out) const {
  if (is_md5())
    append_decimal(out, md5);
  else
    out.append(name);
}

int compare(const FunctionId& a, const FunctionId& b) {
  const bool am = a.is_md5(), bm = b.is_md5();
  if (am != bm) return am ? -1 : 1;
  if (am) return a.md5 < b.md5 ? -1 : (a.md5 > b.md5 ? 1 : 0);
  const size_t n = std::min(a.name.size(), b.name.size());
  if (n != 0) {
    if (int c = std::memcmp(a.name.data(), b.name.data(), n); c != 0) return c < 0 ? -1 : 1;
  }
  return a.name.size() < b.name.size() ? -1 : (a.name.size() > b.name.size() ? 1 : 0);
}

void LineLocation::append_to(std::string& out) const {
  append_decimal(out, line);
  if (discriminator != 0) {
    out.push_back('.');
    append_decimal(out, discriminator);
  }
}

std::vector<std::pair<FunctionId, uint64_t>> SampleRecord::sorted_targets() const {
  auto v = targets;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return compare(a.first, b.first) < 0;
  });
  return v;
}

uint64_t saturating_add_mul(uint64_t a, uint64_t b, uint64_t w, MergeResult& result) {
  uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(b, w, &product) || __builtin_add_overflow(a, product, &sum)) {
    note(result, MergeResult::counter_overflow);
    return ~uint64_t{0};
  }
  return sum;
}

// ---- keys ----------------------------------------------------------------------------
// LLVM's hash_combine_range over 64-bit values (llvm/ADT/Hashing.h, CityHash-derived), with
// the fixed seed of release builds. Only whole 8-byte values occur here.
namespace {

constexpr uint64_t k0 = 0xc3a5c85c97cb3127ULL, k1 = 0xb492b66fbe98f273ULL,
                   k2 = 0x9ae16a3b2f90404fULL, k3 = 0xc949d7c7509e6557ULL;
constexpr uint64_t kSeed = 0xff51afd7ed558ccdULL;

uint64_t rotr(uint64_t v, unsigned s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
uint64_t hash16(uint64_t low, uint64_t high) {
  const uint64_t mul = 0x9ddfea08eb382d69ULL;
  uint64_t a = (low ^ high) * mul;
  a ^= a >> 47;
  uint64_t b = (high ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}
uint64_t f64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t f32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t hash_short(const uint8_t* s, size_t n, uint64_t seed) {
  if (n == 0) return k2 ^ seed;
  if (n >= 4 && n <= 8) {
    const uint64_t a = f32(s);
    return hash16(n + (a << 3), seed ^ f32(s + n - 4));
  }
  if (n > 8 && n <= 16) {
    const uint64_t a = f64(s), b = f64(s + n - 8);
    return hash16(seed ^ a, rotr(b + n, static_cast<unsigned>(n))) ^ b;
  }
  if (n > 16 && n <= 32) {
    const uint64_t a = f64(s) * k1, b = f64(s + 8), c = f64(s + n - 8) * k2,
                   d = f64(s + n - 16) * k0;
    return hash16(rotr(a - b, 43) + rotr(c ^ seed, 30) + d, a + rotr(b ^ k3, 20) - c + n + seed);
  }
  // 33..64 bytes
  uint64_t z = f64(s + 24);
  uint64_t a = f64(s) + (n + f64(s + n - 16)) * k0;
  uint64_t b = rotr(a + z, 52);
  uint64_t c = rotr(a, 37);
  a += f64(s + 8);
  c += rotr(a, 7);
  a += f64(s + 16);
  const uint64_t vf = a + z;
  const uint64_t vs = b + rotr(a, 31) + c;
  a = f64(s + 16) + f64(s + n - 32);
  z = f64(s + n - 8);
  b = rotr(a + z, 52);
  c = rotr(a, 37);
  a += f64(s + n - 24);
  c += rotr(a, 7);
  a += f64(s + n - 16);
  const uint64_t wf = a + z;
  const uint64_t ws = b + rotr(a, 31) + c;
  const uint64_t r = shift_mix((vf + ws) * k2 + (wf + vs) * k0);
  return shift_mix((seed ^ (r * k0)) + vs) * k2;
}

struct HashState {
  uint64_t h0 = 0, h1, h2, h3, h4, h5, h6;
  HashState(const uint8_t* buf, uint64_t seed) {
    h1 = seed;
    h2 = hash16(seed, k1);
    h3 = rotr(seed ^ k1, 49);
    h4 = seed * k1;
    h5 = shift_mix(seed);
    h6 = hash16(h4, h5);
    mix(buf);
  }
  static void mix32(const uint8_t* p, uint64_t& a, uint64_t& b) {
    a += f64(p);
    const uint64_t c = f64(p + 24);
    b = rotr(b + a + c, 21);
    const uint64_t d = a;
    a += f64(p + 8) + f64(p + 16);
    b += rotr(a, 44) + d;
    a += c;
  }
  void mix(const uint8_t* p) {
    h0 = rotr(h0 + h1 + h3 + f64(p + 8), 37) * k1;
    h1 = rotr(h1 + h4 + f64(p + 48), 42) * k1;
    h0 ^= h6;
    h1 += h3 + f64(p + 40);
    h2 = rotr(h2 + h5, 33) * k1;
    h3 = h4 * k1;
    h4 = h0 + h5;
    mix32(p, h3, h4);
    h5 = h2 + h6;
    h6 = h1 + f64(p + 16);
    mix32(p + 32, h5, h6);
    std::swap(h2, h0);
  }
  uint64_t finalize(uint64_t length) const {
    return hash16(hash16(h3, h5) + shift_mix(h1) * k1 + h2,
                  hash16(h4, h6) + shift_mix(length) * k1 + h0);
  }
};

// hash_combine_range over a sequence of values that are not contiguous "hashable data":
// 64-byte blocks are filled, a partial last block is rotated to the end of the buffer.
uint64_t hash_combine_u64(const std::vector<uint64_t>& values) {
  uint8_t buffer[64];
  size_t i = 0, filled = 0;
  while (i < values.size() && filled + 8 <= 64) {
    std::memcpy(buffer + filled, &values[i++], 8);
    filled += 8;
  }
  if (i == values.size()) return hash_short(buffer, filled, kSeed);
  HashState state(buffer, kSeed);
  uint64_t length = 64;
  while (i < values.size()) {
    size_t n = 0;
    while (i < values.size() && n + 8 <= 64) {
      std::memcpy(buffer + n, &values[i++], 8);
      n += 8;
    }
    // A short last chunk is mixed rotated, its new bytes last (as std::rotate would leave
    // them; two copies, because g++ -O3 warns falsely about rotate on this buffer).
    uint8_t rotated[64];
    std::memcpy(rotated, buffer + n, 64 - n);
    std::memcpy(rotated + 64 - n, buffer, n);
    state.mix(rotated);
    length += n;
  }
  return state.finalize(length);
}

}  // namespace

uint64_t context_key(const std::vector<Frame>& frames) {
  std::vector<uint64_t> values;
  values.reserve(frames.size());
  for (const Frame& f : frames) {
    const uint64_t l = f.location.hash();
    values.push_back(f.name.hash() + (l << 5) + l);
  }
  return hash_combine_u64(values);
}

uint64_t FunctionSamples::key() const {
  return has_context() ? context_key(context) : name.hash();
}

std::string FunctionSamples::context_string() const {
  if (!has_context()) return name.str();
  std::string s;
  for (size_t i = 0; i < context.size(); ++i) {
    if (!s.empty()) s += " @ ";
    context[i].name.append_to(s);
    if (i + 1 != context.size()) {
      s.push_back(':');
      context[i].location.append_to(s);
    }
  }
  return s;
}

bool context_less(const FunctionSamples& a, const FunctionSamples& b) {
  if (a.has_context() != b.has_context()) return !a.has_context();
  if (!a.has_context()) return compare(a.name, b.name) < 0;
  const size_t n = std::min(a.context.size(), b.context.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = compare(a.context[i].name, b.context[i].name); c != 0) return c < 0;
    if (a.context[i].location != b.context[i].location)
      return a.context[i].location < b.context[i].location;
  }
  return a.context.size() < b.context.size();
}

// ---- merging -------------------------------------------------------------------------

MergeResult FunctionSamples::add_body(LineLocation loc, uint64_t n, uint64_t weight) {
  MergeResult r = MergeResult::ok;
  SampleRecord& rec = body[loc];
  rec.samples = saturating_add_mul(rec.samples, n, weight, r);
  return r;
}

MergeResult FunctionSamples::add_target(LineLocation loc, FunctionId target, uint64_t n,
                                        uint64_t weight) {
  MergeResult r = MergeResult::ok;
  SampleRecord& rec = body[loc];
  for (auto& [t, count] : rec.targets) {
    if (t == target) {
      count = saturating_add_mul(count, n, weight, r);
      return r;
    }
  }
  rec.targets.emplace_back(target, saturating_add_mul(0, n, weight, r));
  return r;
}

// LLVM's FunctionSamples::merge: the first profile's name, context and attributes win; a
// checksum that differs from a non-zero one rejects `other` entirely; every count is a
// weighted saturating sum; nothing is recomputed.
MergeResult FunctionSamples::merge(const FunctionSamples& other, uint64_t weight) {
  if (name.empty() && !has_context()) {
    name = other.name;
    context = other.context;
    attributes = other.attributes;
  }
  if (checksum == 0)
    checksum = other.checksum;
  else if (checksum != other.checksum)
    return MergeResult::hash_mismatch;
  MergeResult r = MergeResult::ok;
  total = saturating_add_mul(total, other.total, weight, r);
  head = saturating_add_mul(head, other.head, weight, r);
  if (!other.body.empty()) {
    std::vector<LineLocation> keys;
    keys.reserve(other.body.size());
    for (const auto& [loc, rec] : other.body) keys.push_back(loc);
    body.add_keys(keys);
  }
  for (const auto& [loc, rec] : other.body) {
    SampleRecord& mine = body.find(loc)->second;
    mine.samples = saturating_add_mul(mine.samples, rec.samples, weight, r);
    for (const auto& [target, n] : rec.targets) {
      bool found = false;
      for (auto& [t, count] : mine.targets) {
        if (t == target) {
          count = saturating_add_mul(count, n, weight, r);
          found = true;
          break;
        }
      }
      if (!found) mine.targets.emplace_back(target, saturating_add_mul(0, n, weight, r));
    }
  }
  for (const auto& [loc, callees] : other.callsites) {
    CalleeMap& mine = callsites[loc];
    for (const auto& [callee, samples] : callees) note(r, mine[callee].merge(samples, weight));
  }
  for (const auto& [loc, types] : other.vtables) {
    auto& mine = vtables[loc];
    for (const auto& [type, n] : types) mine[type] = saturating_add_mul(mine[type], n, weight, r);
  }
  return r;
}

uint64_t FunctionSamples::head_estimate(bool profile_is_cs) const {
  if (profile_is_cs && head != 0) return head;
  uint64_t count = 0;
  if (!body.empty() && (callsites.empty() || body.begin()->first < callsites.begin()->first)) {
    count = body.begin()->second.samples;
  } else if (!callsites.empty()) {
    for (const auto& [callee, samples] : callsites.begin()->second)
      count += samples.head_estimate(profile_is_cs);
  }
  return count != 0 ? count : (total > 0 ? 1 : 0);
}

uint64_t FunctionSamples::max_body_samples() const {
  uint64_t m = 0;
  for (const auto& [loc, rec] : body) m = std::max(m, rec.samples);
  for (const auto& [loc, callees] : callsites)
    for (const auto& [callee, samples] : callees) m = std::max(m, samples.max_body_samples());
  return m;
}

// ---- profile ---------------------------------------------------------------------------

std::string_view Profile::own(std::string s) {
  auto owned = std::make_shared<const std::string>(std::move(s));
  std::string_view view(*owned);
  storage.push_back(std::move(owned));
  return view;
}

void Profile::adopt_storage(const Profile& other) {
  storage.insert(storage.end(), other.storage.begin(), other.storage.end());
}

std::vector<const FunctionSamples*> sorted_functions(const Profile& profile) {
  std::vector<const FunctionSamples*> v;
  v.reserve(profile.functions.size());
  for (const auto& [key, f] : profile.functions) v.push_back(&f);
  std::stable_sort(v.begin(), v.end(), [](const FunctionSamples* a, const FunctionSamples* b) {
    if (a->total != b->total) return a->total > b->total;
    return context_less(*a, *b);
  });
  return v;
}

// ---- summary -------------------------------------------------------------------------

namespace {

constexpr uint32_t kCutoffs[] = {10000,  100000, 200000, 300000, 400000, 500000,
                                 600000, 700000, 800000, 900000, 950000, 990000,
                                 999000, 999900, 999990, 999999};

struct SummaryBuilder {
  Summary s;
  std::map<uint64_t, uint64_t, std::greater<>> frequency;
  uint32_t num_counts = 0;  // LLVM counts in 32 bits

  void add(const FunctionSamples& f, bool inlinee) {
    if (!inlinee) {
      ++s.num_functions;
      s.max_function_count = std::max(s.max_function_count, f.head);
    } else if (f.attributes & kContextDuplicatedIntoBase) {
      return;  // already counted in its base profile
    }
    for (const auto& [loc, rec] : f.body) {
      s.total_count += rec.samples;  // wraps, as LLVM's does
      s.max_count = std::max(s.max_count, rec.samples);
      ++num_counts;
      ++frequency[rec.samples];
    }
    for (const auto& [loc, callees] : f.callsites)
      for (const auto& [callee, samples] : callees) add(samples, true);
  }

  Summary finish() {
    s.num_counts = num_counts;
    uint64_t sum = 0;  // wraps, as LLVM's does
    uint32_t seen = 0;
    uint64_t count = 0;
    auto it = frequency.begin();
    for (uint32_t cutoff : kCutoffs) {
      const unsigned __int128 desired =
          static_cast<unsigned __int128>(s.total_count) * cutoff / 1000000;
      while (sum < desired && it != frequency.end()) {
        count = it->first;
        sum += count * it->second;
        seen += static_cast<uint32_t>(it->second);
        ++it;
      }
      s.detailed.push_back({cutoff, count, seen});
    }
    return s;
  }
};

}  // namespace

Summary compute_summary(const Profile& profile) {
  SummaryBuilder b;
  if (!profile.is_cs) {
    for (const auto& [key, f] : profile.functions) b.add(f, false);
    return b.finish();
  }
  // CS profiles are summarised on the profile flattened by leaf name, merged in map order.
  std::vector<const FunctionSamples*> profiles;
  profiles.reserve(profile.functions.size());
  for (const auto& [key, f] : profile.functions) profiles.push_back(&f);
  return flat_summary(profiles);
}

Summary flat_summary(const std::vector<const FunctionSamples*>& profiles) {
  SummaryBuilder b;
  const bool nested = std::any_of(profiles.begin(), profiles.end(),
                                  [](const FunctionSamples* f) { return !f->callsites.empty(); });
  if (nested) {
    std::unordered_map<uint64_t, FunctionSamples> flat;
    for (const FunctionSamples* f : profiles) {
      auto [it, inserted] = flat.try_emplace(f->name.hash());
      if (inserted) it->second.name = f->name;
      (void)it->second.merge(*f);
    }
    for (const auto& [key, f] : flat) b.add(f, false);
    return b.finish();
  }
  // Without inlinees, what the summary needs of the merged profiles is each function's
  // head and merged checksum and each of its locations' summed count: kept per function in
  // a vector sorted by location (a profile's body merges in with one linear pass), instead
  // of merged profiles (no targets, no tree nodes).
  struct Flat {
    uint64_t checksum = 0;
    uint64_t head = 0;
    std::vector<std::pair<LineLocation, uint64_t>> body;
  };
  std::unordered_map<uint64_t, uint32_t> index;  // name hash -> function
  std::vector<Flat> functions;
  std::vector<std::pair<LineLocation, uint64_t>> added;
  MergeResult ignored = MergeResult::ok;
  for (const FunctionSamples* f : profiles) {
    auto [it, inserted] = index.try_emplace(f->name.hash(), static_cast<uint32_t>(functions.size()));
    if (inserted) functions.emplace_back();
    Flat& m = functions[it->second];
    // merge's checksum rule: a profile whose checksum differs is not merged at all.
    if (m.checksum == 0)
      m.checksum = f->checksum;
    else if (m.checksum != f->checksum)
      continue;
    m.head = saturating_add_mul(m.head, f->head, 1, ignored);
    added.clear();
    size_t i = 0;
    for (const auto& [loc, rec] : f->body) {
      while (i < m.body.size() && m.body[i].first < loc) ++i;
      if (i < m.body.size() && m.body[i].first == loc)
        m.body[i].second = saturating_add_mul(m.body[i].second, rec.samples, 1, ignored);
      else
        added.emplace_back(loc, rec.samples);
    }
    if (!added.empty()) {
      const size_t old = m.body.size();
      m.body.insert(m.body.end(), added.begin(), added.end());
      std::inplace_merge(m.body.begin(), m.body.begin() + static_cast<int64_t>(old), m.body.end());
    }
  }
  Summary& s = b.s;
  s.num_functions = functions.size();
  for (const Flat& m : functions) s.max_function_count = std::max(s.max_function_count, m.head);
  for (const Flat& m : functions) {
    for (const auto& [loc, n] : m.body) {
      s.total_count += n;  // wraps, as LLVM's does
      s.max_count = std::max(s.max_count, n);
      ++b.num_counts;
      ++b.frequency[n];
    }
  }
  return b.finish();
}

}  // namespace profkit::sampleprof
