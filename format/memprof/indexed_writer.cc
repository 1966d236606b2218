// Indexed MemProf section writer. The byte order of every table follows LLVM's generators
// (C.4.2 hash-table chains, C.6.1 frame order, C.6.2 radix array) so the output is
// byte-identical to llvm-profdata 22.
#include "format/memprof/indexed_writer.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "format/bytes/cursor.h"

namespace profkit::memprof {
namespace {

class Out {
 public:
  explicit Out(uint64_t base) : base_(base) {}
  uint64_t offset() const { return base_ + bytes_.size(); }
  template <class T>
  void put(T v) {
    uint8_t buf[sizeof(T)];
    store_le<T>(buf, v);
    bytes_.append(reinterpret_cast<const char*>(buf), sizeof(T));
  }
  void append(const std::string& s) { bytes_ += s; }
  void put_u32_array(const std::vector<uint32_t>& v) {
    const size_t at = bytes_.size();
    bytes_.resize(at + 4 * v.size());
    auto* p = reinterpret_cast<uint8_t*>(bytes_.data()) + at;
    for (size_t i = 0; i < v.size(); ++i) store_le<uint32_t>(p + 4 * i, v[i]);
  }
  void pad8() {
    while (offset() % 8 != 0) bytes_.push_back('\0');
  }
  template <class T>
  void patch(uint64_t absolute, T v) {
    uint8_t buf[sizeof(T)];
    store_le<T>(buf, v);
    bytes_.replace(absolute - base_, sizeof(T), reinterpret_cast<const char*>(buf), sizeof(T));
  }
  std::string take() { return std::move(bytes_); }

 private:
  uint64_t base_;
  std::string bytes_;
};

template <class T>
void put_le(std::string& s, T v) {
  uint8_t buf[sizeof(T)];
  store_le<T>(buf, v);
  s.append(reinterpret_cast<const char*>(buf), sizeof(T));
}

// LLVM's OnDiskChainedHashTableGenerator (C.4.2): chains are stored tail-first in vectors
// (push_back = prepend), so a chain is emitted by walking its vector backwards.
class HashTableGenerator {
 public:
  struct Item {
    uint64_t hash;
    std::string bytes;  // everything after the hash: [KeyLen] DataLen Key Data
  };
  HashTableGenerator() : buckets_(64) {}

  void insert(uint64_t hash, std::string bytes) {
    ++num_entries_;
    if (4 * num_entries_ >= 3 * buckets_.size()) resize(buckets_.size() * 2);
    buckets_[hash & (buckets_.size() - 1)].push_back(Item{hash, std::move(bytes)});
  }

  // Writes payload + padding + table; returns the table's absolute offset.
  uint64_t emit(Out& out) {
    uint64_t target = 1;
    if (num_entries_ > 2) {
      const uint64_t want = num_entries_ * 4 / 3 + 1;
      while (target < want) target <<= 1;
    }
    if (target != buckets_.size()) resize(target);
    std::vector<uint64_t> offsets(buckets_.size(), 0);
    for (size_t b = 0; b < buckets_.size(); ++b) {
      const auto& chain = buckets_[b];
      if (chain.empty()) continue;
      offsets[b] = out.offset();
      out.put<uint16_t>(static_cast<uint16_t>(chain.size()));
      for (size_t i = chain.size(); i-- > 0;) {
        out.put<uint64_t>(chain[i].hash);
        out.append(chain[i].bytes);
      }
    }
    out.pad8();
    const uint64_t table = out.offset();
    out.put<uint64_t>(buckets_.size());
    out.put<uint64_t>(num_entries_);
    for (uint64_t o : offsets) out.put<uint64_t>(o);
    return table;
  }

 private:
  void resize(size_t n) {
    std::vector<std::vector<Item>> next(n);
    for (auto& chain : buckets_)
      for (size_t i = chain.size(); i-- > 0;)  // head to tail
        next[chain[i].hash & (n - 1)].push_back(std::move(chain[i]));
    buckets_ = std::move(next);
  }

  std::vector<std::vector<Item>> buckets_;
  uint64_t num_entries_ = 0;
};

// Size of each MIB field, by tag (1-based).
constexpr size_t kFieldSize[] = {
    0,
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First) sizeof(Type),
#include "format/memprof/mib_fields.def"
};

void put_mib(std::string& s, const MemInfoBlock& m, const std::vector<uint64_t>& schema) {
  for (uint64_t tag : schema) {
    switch (tag) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First) \
  case Tag:                                       \
    put_le<Type>(s, m.Name);                      \
    break;
#include "format/memprof/mib_fields.def"
      default:
        break;
    }
  }
}

void put_frame(std::string& s, const Frame& f) {
  put_le<uint64_t>(s, f.function);
  put_le<uint32_t>(s, f.line_offset);
  put_le<uint32_t>(s, f.column);
  put_le<uint8_t>(s, f.is_inline ? 1 : 0);
}

// Distinct frames and call stacks in insertion order (C.9), interned to dense indices so
// the sorts and the radix array below work on small integers. A frame's id (BLAKE3) is
// computed once per distinct frame and a stack's id once per distinct stack.
struct Tables {
  struct FrameHash {
    size_t operator()(const Frame& f) const {
      uint64_t h = f.function * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t{f.line_offset} << 32 | f.column) + 0x632BE59BD9B4E019ull + (h << 6) +
           (h >> 2);
      return static_cast<size_t>(h ^ (f.is_inline ? 0x5bd1e995u : 0));
    }
  };
  // Stacks are leaf-first runs of dense frame indices in `pool`; a set of stack indices
  // keyed by those runs finds repeats without building a key.
  struct StackHash {
    const Tables* t;
    size_t operator()(uint32_t s) const {
      uint64_t h = 0xcbf29ce484222325ull;
      for (uint32_t f : t->stack(s)) {
        h = (h ^ f) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 32;
      }
      return static_cast<size_t>(h);
    }
  };
  struct StackEq {
    const Tables* t;
    bool operator()(uint32_t a, uint32_t b) const {
      const auto x = t->stack(a), y = t->stack(b);
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
  };

  std::vector<uint64_t> frame_ids;  // dense frame index -> id, insertion order
  std::vector<Frame> frames;        // dense frame index -> frame
  std::unordered_map<Frame, uint32_t, FrameHash> frame_index;
  std::unordered_map<uint64_t, uint32_t> frame_by_id;
  std::vector<uint32_t> pool;                   // frame indices of every distinct stack
  std::vector<uint64_t> stack_begin{0};         // stack s is pool[begin[s], begin[s+1])
  std::vector<uint64_t> stack_ids;              // dense stack index -> call stack id
  std::unordered_set<uint32_t, StackHash, StackEq> stack_set{64, StackHash{this},
                                                             StackEq{this}};
  std::unordered_map<uint64_t, uint32_t> stack_by_id;
  std::vector<uint64_t> ids_;  // scratch

  Tables() = default;
  Tables(const Tables&) = delete;
  Tables& operator=(const Tables&) = delete;

  size_t num_stacks() const { return stack_ids.size(); }
  // Frees the lookup structures once every stack is added.
  void drop_lookup() {
    decltype(frame_index)().swap(frame_index);
    decltype(frame_by_id)().swap(frame_by_id);
    decltype(stack_set)(0, StackHash{this}, StackEq{this}).swap(stack_set);
    decltype(stack_by_id)().swap(stack_by_id);
  }
  std::span<const uint32_t> stack(uint32_t s) const {
    return {pool.data() + stack_begin[s], pool.data() + stack_begin[s + 1]};
  }

  uint32_t add_frame(const Frame& f) {
    auto [it, fresh] = frame_index.try_emplace(f, 0);
    if (!fresh) return it->second;
    const uint64_t id = frame_id(f);
    auto [by_id, new_id] = frame_by_id.try_emplace(id, static_cast<uint32_t>(frames.size()));
    if (new_id) {
      frames.push_back(f);
      frame_ids.push_back(id);
    }
    it->second = by_id->second;
    return by_id->second;
  }

  // Returns the dense index of the stack.
  uint32_t add(const CallStack& cs) {
    const uint32_t s = static_cast<uint32_t>(stack_ids.size());
    for (const Frame& f : cs) pool.push_back(add_frame(f));
    stack_begin.push_back(pool.size());
    auto [found, fresh] = stack_set.insert(s);
    if (!fresh) {
      pool.resize(stack_begin[s]);
      stack_begin.pop_back();
      return *found;
    }
    ids_.clear();
    for (uint32_t f : stack(s)) ids_.push_back(frame_ids[f]);
    const uint64_t csid = call_stack_id_from_frame_ids(ids_);
    auto [by_id, new_id] = stack_by_id.try_emplace(csid, s);
    if (!new_id) {  // a different stack with the same 64-bit id: LLVM keeps the first
      stack_set.erase(found);
      pool.resize(stack_begin[s]);
      stack_begin.pop_back();
      return by_id->second;
    }
    stack_ids.push_back(csid);
    return s;
  }
};

struct RecordIds {
  std::vector<uint32_t> alloc;  // dense stack index per alloc site
  std::vector<uint32_t> calls;  // dense stack index per call site
};

std::vector<uint64_t> schema_for(const IndexedWriteOptions& o) {
  if (!o.full_schema) return {std::begin(kHotColdSchema), std::end(kHotColdSchema)};
  std::vector<uint64_t> all;
  for (uint64_t t = 1; t < sizeof(kFieldSize) / sizeof(kFieldSize[0]); ++t) all.push_back(t);
  return all;
}

// C.6.1 + C.6.2: frame array order and radix array; returns the linear id of each stack
// (by dense stack index).
std::vector<uint32_t> write_frames_and_radix(Out& out, const Tables& t) {
  const size_t nf = t.frames.size();
  const size_t ns = t.num_stacks();
  std::vector<uint64_t> count(nf, 0), position_sum(nf, 0);
  for (uint32_t s = 0; s < ns; ++s) {
    const auto st = t.stack(s);
    for (size_t i = 0; i < st.size(); ++i) {
      ++count[st[i]];
      position_sum[st[i]] += i;
    }
  }
  std::vector<uint32_t> order(nf);
  for (uint32_t f = 0; f < nf; ++f) order[f] = f;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (count[a] != count[b]) return count[a] > count[b];
    if (position_sum[a] != position_sum[b]) return position_sum[a] < position_sum[b];
    return t.frame_ids[a] < t.frame_ids[b];
  });
  std::vector<uint32_t> linear_frame(nf);
  std::string frame_bytes;
  frame_bytes.reserve(17 * nf);
  for (size_t i = 0; i < nf; ++i) {
    linear_frame[order[i]] = static_cast<uint32_t>(i);
    put_frame(frame_bytes, t.frames[order[i]]);
  }
  out.append(frame_bytes);

  // Stacks sorted by their root-first sequences, frames compared by (Count, FrameId): with
  // each frame replaced by its rank in that order, a plain lexicographic comparison.
  std::vector<uint32_t> by_rank(nf);
  for (uint32_t f = 0; f < nf; ++f) by_rank[f] = f;
  std::sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) {
    if (count[a] != count[b]) return count[a] < count[b];
    return t.frame_ids[a] < t.frame_ids[b];
  });
  std::vector<uint32_t> rank(nf);
  for (uint32_t i = 0; i < nf; ++i) rank[by_rank[i]] = i;
  std::vector<uint32_t> root_first(t.pool.size());
  for (uint32_t s = 0; s < ns; ++s) {
    const auto st = t.stack(s);
    uint32_t* dst = root_first.data() + t.stack_begin[s];
    for (size_t i = 0; i < st.size(); ++i) dst[i] = rank[st[st.size() - 1 - i]];
  }
  const auto seq = [&](uint32_t s) {
    return std::span<const uint32_t>(root_first.data() + t.stack_begin[s],
                                     root_first.data() + t.stack_begin[s + 1]);
  };
  std::vector<uint32_t> sorted(ns);
  for (uint32_t s = 0; s < ns; ++s) sorted[s] = s;
  std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
    const auto x = seq(a), y = seq(b);
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  });

  std::vector<uint32_t> r;
  r.reserve(t.pool.size() + ns);
  std::vector<uint64_t> position(ns);
  std::vector<uint64_t> idx;
  std::span<const uint32_t> prev;
  bool have_prev = false;
  for (size_t k = ns; k-- > 0;) {
    const uint32_t s = sorted[k];
    const auto ids = seq(s);  // root first; equal ranks <=> equal frames
    size_t common = 0;
    if (have_prev)
      while (common < prev.size() && common < ids.size() && prev[common] == ids[common])
        ++common;
    idx.resize(common);
    if (common > 0)
      r.push_back(static_cast<uint32_t>(static_cast<int64_t>(idx[common - 1]) -
                                        static_cast<int64_t>(r.size())));
    for (size_t i = common; i < ids.size(); ++i) {
      idx.push_back(r.size());
      r.push_back(linear_frame[by_rank[ids[i]]]);
    }
    r.push_back(static_cast<uint32_t>(ids.size()));
    position[s] = r.size() - 1;
    prev = ids;
    have_prev = true;
  }
  std::reverse(r.begin(), r.end());
  std::vector<uint32_t> linear_stack(ns);
  for (uint32_t s = 0; s < ns; ++s)
    linear_stack[s] = static_cast<uint32_t>(r.size() - 1 - position[s]);
  out.put_u32_array(r);
  return linear_stack;
}

}  // namespace

std::string write_memprof_section(const MemProfData& data, const IndexedWriteOptions& options) {
  assert(options.version >= 2 && options.version <= 4);
  const std::vector<uint64_t> schema = schema_for(options);
  Tables t;
  // Stacks in insertion order, then every record's stacks; a stack that stack_order
  // already named keeps its index without a second lookup.
  constexpr uint32_t kUnset = ~uint32_t{0};
  std::vector<RecordIds> rec_ids(data.records.size());
  for (size_t i = 0; i < data.records.size(); ++i) {
    rec_ids[i].alloc.assign(data.records[i].alloc_sites.size(), kUnset);
    rec_ids[i].calls.assign(data.records[i].call_sites.size(), kUnset);
  }
  size_t order_frames = 0;
  for (const StackRef& ref : data.stack_order) order_frames += data.stack(ref).size();
  t.pool.reserve(order_frames);
  t.stack_begin.reserve(data.stack_order.size() + 1);
  for (const StackRef& ref : data.stack_order) {
    const uint32_t s = t.add(data.stack(ref));
    (ref.call_site ? rec_ids[ref.record].calls : rec_ids[ref.record].alloc)[ref.site] = s;
  }
  for (size_t i = 0; i < data.records.size(); ++i) {
    for (size_t a = 0; a < rec_ids[i].alloc.size(); ++a)
      if (rec_ids[i].alloc[a] == kUnset)
        rec_ids[i].alloc[a] = t.add(data.records[i].alloc_sites[a].call_stack);
    for (size_t c = 0; c < rec_ids[i].calls.size(); ++c)
      if (rec_ids[i].calls[c] == kUnset)
        rec_ids[i].calls[c] = t.add(data.records[i].call_sites[c].frames);
  }
  t.drop_lookup();

  Out out(options.section_offset);
  out.put<uint64_t>(options.version);
  const uint64_t header_at = out.offset();
  const auto put_schema = [&] {
    out.put<uint64_t>(schema.size());
    for (uint64_t tag : schema) out.put<uint64_t>(tag);
  };
  const auto record_key = [](uint64_t guid, const std::string& body) {
    std::string s;
    s.reserve(24 + body.size());
    put_le<uint64_t>(s, 8);
    put_le<uint64_t>(s, body.size());
    put_le<uint64_t>(s, guid);
    s += body;
    return s;
  };

  if (options.version == 2) {
    for (int i = 0; i < 5; ++i) out.put<uint64_t>(0);
    put_schema();
    HashTableGenerator records;
    for (size_t i = 0; i < data.records.size(); ++i) {
      const Record& r = data.records[i];
      std::string body;
      put_le<uint64_t>(body, r.alloc_sites.size());
      for (size_t a = 0; a < r.alloc_sites.size(); ++a) {
        put_le<uint64_t>(body, t.stack_ids[rec_ids[i].alloc[a]]);
        put_mib(body, r.alloc_sites[a].mib, schema);
      }
      put_le<uint64_t>(body, r.call_sites.size());
      for (uint32_t s : rec_ids[i].calls) put_le<uint64_t>(body, t.stack_ids[s]);
      records.insert(r.guid, record_key(r.guid, body));
    }
    const uint64_t record_table = records.emit(out);
    const uint64_t frame_payload = out.offset();
    HashTableGenerator frames;
    for (size_t f = 0; f < t.frames.size(); ++f) {
      const uint64_t id = t.frame_ids[f];
      std::string s;
      put_le<uint64_t>(s, 8);
      put_le<uint64_t>(s, 17);
      put_le<uint64_t>(s, id);
      put_frame(s, t.frames[f]);
      frames.insert(id, std::move(s));
    }
    const uint64_t frame_table = frames.emit(out);
    const uint64_t stack_payload = out.offset();
    HashTableGenerator stacks;
    for (uint32_t st = 0; st < t.num_stacks(); ++st) {
      const uint64_t csid = t.stack_ids[st];
      const auto ids = t.stack(st);
      std::string s;
      put_le<uint64_t>(s, 8 * ids.size());
      put_le<uint64_t>(s, csid);
      for (uint32_t f : ids) put_le<uint64_t>(s, t.frame_ids[f]);
      stacks.insert(csid, std::move(s));
    }
    const uint64_t stack_table = stacks.emit(out);
    out.patch<uint64_t>(header_at, record_table);
    out.patch<uint64_t>(header_at + 8, frame_payload);
    out.patch<uint64_t>(header_at + 16, frame_table);
    out.patch<uint64_t>(header_at + 24, stack_payload);
    out.patch<uint64_t>(header_at + 32, stack_table);
    return out.take();
  }

  for (int i = 0; i < (options.version == 3 ? 3 : 4); ++i) out.put<uint64_t>(0);
  if (options.version == 4) {
    const MemProfSummary s = compute_summary(data, false, options.classify);
    out.put<uint32_t>(6);
    out.put<uint64_t>(s.num_contexts);
    out.put<uint64_t>(s.num_cold_contexts);
    out.put<uint64_t>(s.num_hot_contexts);
    out.put<uint64_t>(s.max_cold_total_size);
    out.put<uint64_t>(s.max_warm_total_size);
    out.put<uint64_t>(s.max_hot_total_size);
  }
  put_schema();
  const auto linear = write_frames_and_radix(out, t);
  const uint64_t record_payload = out.offset();
  HashTableGenerator records;
  for (size_t i = 0; i < data.records.size(); ++i) {
    const Record& r = data.records[i];
    std::string body;
    put_le<uint64_t>(body, r.alloc_sites.size());
    for (size_t a = 0; a < r.alloc_sites.size(); ++a) {
      put_le<uint32_t>(body, linear[rec_ids[i].alloc[a]]);
      put_mib(body, r.alloc_sites[a].mib, schema);
    }
    put_le<uint64_t>(body, r.call_sites.size());
    for (size_t c = 0; c < r.call_sites.size(); ++c) {
      put_le<uint32_t>(body, linear[rec_ids[i].calls[c]]);
      if (options.version == 4) {
        put_le<uint64_t>(body, r.call_sites[c].callee_guids.size());
        for (uint64_t g : r.call_sites[c].callee_guids) put_le<uint64_t>(body, g);
      }
    }
    records.insert(r.guid, record_key(r.guid, body));
  }
  const uint64_t record_table = records.emit(out);
  const uint64_t frames_start = header_at + (options.version == 3 ? 24 : 32) +
                                (options.version == 4 ? 4 + 48 : 0) + 8 + 8 * schema.size();
  const uint64_t stack_payload = frames_start + 17 * t.frame_ids.size();
  out.patch<uint64_t>(header_at, stack_payload);
  out.patch<uint64_t>(header_at + 8, record_payload);
  out.patch<uint64_t>(header_at + 16, record_table);
  if (options.version == 4) out.patch<uint64_t>(header_at + 24, 0);
  return out.take();
}

std::string write_memprof_only_profile(const MemProfData& data, IndexedWriteOptions options) {
  static constexpr uint64_t kCutoffs[] = {10000,  100000, 200000, 300000, 400000, 500000,
                                          600000, 700000, 800000, 900000, 950000, 990000,
                                          999000, 999900, 999990, 999999};
  std::string file(9 * 8, '\0');
  put_le<uint64_t>(file, 6);
  put_le<uint64_t>(file, std::size(kCutoffs));
  for (int i = 0; i < 6; ++i) put_le<uint64_t>(file, 0);
  for (uint64_t c : kCutoffs) {
    put_le<uint64_t>(file, c);
    put_le<uint64_t>(file, 0);
    put_le<uint64_t>(file, 0);
  }
  const uint64_t hash_offset = file.size();
  put_le<uint64_t>(file, 1);
  put_le<uint64_t>(file, 0);
  put_le<uint64_t>(file, 0);
  const uint64_t memprof_offset = file.size();
  options.section_offset = memprof_offset;
  file += write_memprof_section(data, options);
  const uint64_t binary_id_offset = file.size();
  put_le<uint64_t>(file, 0);
  const uint64_t vtable_offset = file.size();
  put_le<uint64_t>(file, 0);
  const uint64_t header[9] = {0x8169666F72706CFFull, 13 | (uint64_t{1} << 62), 0, 0,
                              hash_offset, memprof_offset, binary_id_offset, 0, vtable_offset};
  for (int i = 0; i < 9; ++i) store_le<uint64_t>(reinterpret_cast<uint8_t*>(file.data()) + 8 * i,
                                                 header[i]);
  return file;
}

}  // namespace profkit::memprof
