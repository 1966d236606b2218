// Indexed MemProf section writer. The byte order of every table follows LLVM's generators
// (C.4.2 hash-table chains, C.6.1 frame order, C.6.2 radix array) so the output is
// byte-identical to llvm-profdata 22.
#include "format/memprof/indexed_writer.h"

#include "format/instrprof/indexed_writer.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <span>
#include <unordered_map>

#include "format/bytes/cursor.h"
#include "format/bytes/zlib.h"
#include "format/memprof/indexed_layout.h"

namespace profkit::memprof {

static_assert([] {
  for (uint64_t v : kIndexedVersions) {
    bool found = false;
    for (const IndexedLayout& l : kIndexedLayouts) found = found || l.version == v;
    if (!found) return false;
  }
  return true;
}(), "every version the writer offers has a layout");

namespace {

class Out {
 public:
  explicit Out(uint64_t base) : base_(base) {}
  // Continues `bytes`, which start at file offset 0.
  explicit Out(std::string bytes) : base_(0), bytes_(std::move(bytes)) {}
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

void put_mib(std::string& s, const MemInfoBlock& m, const std::vector<uint64_t>& schema) {
  for (uint64_t tag : schema) {
    switch (tag) {
#define PROFKIT_MIB_FIELD(Tag, Name, Type, First, Merge) \
  case Tag:                                       \
    append_le<Type>(s, m.Name);                      \
    break;
#include "format/memprof/mib_fields.def"
      default:
        break;
    }
  }
}

void put_frame(std::string& s, const Frame& f) {
  append_le<uint64_t>(s, f.function);
  append_le<uint32_t>(s, f.line_offset);
  append_le<uint32_t>(s, f.column);
  append_le<uint8_t>(s, f.is_inline ? 1 : 0);
}

std::vector<uint64_t> schema_for(const IndexedWriteOptions& o) {
  if (!o.full_schema) return {std::begin(kHotColdSchema), std::end(kHotColdSchema)};
  std::vector<uint64_t> all;
  for (uint64_t t = 1; t < kNumMibTags; ++t) all.push_back(t);
  return all;
}

// A stack's root-first sequence of frame ranks, as sort_rank_sequences sees it.
struct RankSequence {
  uint64_t begin;  // index of the first rank in the rank array
  uint32_t stack;
  uint32_t size;
};

// Sorts distinct sequences lexicographically, a sequence before its extensions, by
// multikey quicksort (Bentley and Sedgewick): a three-way partition on one position at a
// time, so a long root-side prefix shared by many stacks is read once per stack and level
// instead of once per comparison (with std::sort this was a fifth of the tree workload).
void sort_rank_sequences(std::span<RankSequence> seqs, const uint32_t* ranks) {
  // The rank at position d, or -1 past the end (so a prefix sorts first).
  const auto key = [ranks](const RankSequence& s, size_t d) -> int64_t {
    return d < s.size ? int64_t{ranks[s.begin + d]} : -1;
  };
  struct Range {
    size_t begin, end, depth;  // seqs[begin, end) agree on their first `depth` ranks
  };
  std::vector<Range> todo{{0, seqs.size(), 0}};
  while (!todo.empty()) {
    auto [b, e, d] = todo.back();
    todo.pop_back();
    while (e - b > 1) {
      const int64_t x = key(seqs[b], d), y = key(seqs[b + (e - b) / 2], d),
                    z = key(seqs[e - 1], d);
      const int64_t pivot = std::max(std::min(x, y), std::min(std::max(x, y), z));
      // [b, lt) < pivot, [lt, gt) == pivot, [gt, e) > pivot.
      size_t lt = b, i = b, gt = e;
      while (i < gt) {
        const int64_t k = key(seqs[i], d);
        if (k < pivot) {
          std::swap(seqs[lt++], seqs[i++]);
        } else if (k > pivot) {
          std::swap(seqs[i], seqs[--gt]);
        } else {
          ++i;
        }
      }
      if (lt - b > 1) todo.push_back({b, lt, d});
      if (e - gt > 1) todo.push_back({gt, e, d});
      if (pivot < 0) break;  // the sequences equal to the pivot end here: at most one
      b = lt;
      e = gt;
      ++d;
    }
  }
}

// C.6.1 + C.6.2: frame array order and radix array; returns the linear id of each stack
// (by dense stack index).
std::vector<uint32_t> write_frames_and_radix(Out& out, const StackTable& t) {
  const size_t nf = t.num_frames();
  const size_t ns = t.num_stacks();
  std::vector<uint64_t> count(nf, 0), position_sum(nf, 0);
  for (uint32_t s = 0; s < ns; ++s) {
    const auto st = t.frame_indices(s);
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
    return t.frame_id(a) < t.frame_id(b);
  });
  std::vector<uint32_t> linear_frame(nf);
  std::string frame_bytes;
  frame_bytes.reserve(17 * nf);
  for (size_t i = 0; i < nf; ++i) {
    linear_frame[order[i]] = static_cast<uint32_t>(i);
    put_frame(frame_bytes, t.frame(order[i]));
  }
  out.append(frame_bytes);

  // Stacks sorted by their root-first sequences, frames compared by (Count, FrameId): with
  // each frame replaced by its rank in that order, a plain lexicographic comparison.
  std::vector<uint32_t> by_rank(nf);
  for (uint32_t f = 0; f < nf; ++f) by_rank[f] = f;
  std::sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) {
    if (count[a] != count[b]) return count[a] < count[b];
    return t.frame_id(a) < t.frame_id(b);
  });
  std::vector<uint32_t> rank(nf);
  for (uint32_t i = 0; i < nf; ++i) rank[by_rank[i]] = i;
  std::vector<uint32_t> root_first(t.num_stack_frames());
  for (uint32_t s = 0; s < ns; ++s) {
    const auto st = t.frame_indices(s);
    uint32_t* dst = root_first.data() + t.stack_begin(s);
    for (size_t i = 0; i < st.size(); ++i) dst[i] = rank[st[st.size() - 1 - i]];
  }
  const auto seq = [&](uint32_t s) {
    return std::span<const uint32_t>(root_first.data() + t.stack_begin(s),
                                     t.frame_indices(s).size());
  };
  std::vector<RankSequence> sequences(ns);
  for (uint32_t s = 0; s < ns; ++s)
    sequences[s] = {t.stack_begin(s), s, static_cast<uint32_t>(t.frame_indices(s).size())};
  sort_rank_sequences(sequences, root_first.data());
  std::vector<uint32_t> sorted(ns);
  for (uint32_t k = 0; k < ns; ++k) sorted[k] = sequences[k].stack;
  std::vector<RankSequence>().swap(sequences);

  std::vector<uint32_t> r;
  r.reserve(t.num_stack_frames() + ns);
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

// A record-table item after its hash: KeyLen, DataLen (patched by finish_record_item), the
// GUID key, then the record, which the caller appends. Built in place: a large record (all
// of a profile's contexts can share one allocating function) is not copied to add the key.
std::string start_record_item(uint64_t guid, size_t record_size) {
  std::string item;
  item.reserve(24 + record_size);
  append_le<uint64_t>(item, 8);
  append_le<uint64_t>(item, 0);
  append_le<uint64_t>(item, guid);
  return item;
}
void finish_record_item(std::string& item) {
  store_le<uint64_t>(reinterpret_cast<uint8_t*>(item.data()) + 8, item.size() - 24);
}

void put_uleb(std::string& s, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    s.push_back(static_cast<char>(b));
  } while (v != 0);
}

}  // namespace

// C.7.1, in the order LLVM's DataAccessProfData builds its string table: each record's
// symbol then its locations' file names, then the known-cold symbols (which are also
// listed a second time, as cold names). zlib level 9; no padding after the last record.
std::string write_data_access_payload(const DataAccessProfile& p) {
  std::vector<std::string_view> strings;
  std::unordered_map<std::string_view, uint64_t> index;
  const auto intern = [&](std::string_view s) {
    const auto [it, added] = index.try_emplace(s, strings.size());
    if (added) strings.push_back(s);
    return it->second;
  };
  struct Encoded {
    uint64_t id;
    std::vector<uint64_t> files;
  };
  std::vector<Encoded> encoded;
  encoded.reserve(p.records.size());
  for (const DataAccessRecord& r : p.records) {
    Encoded e{r.is_string_literal ? r.hash : intern(r.symbol), {}};
    for (const DataAccessLocation& l : r.locations) e.files.push_back(intern(l.file));
    encoded.push_back(std::move(e));
  }
  for (const std::string& c : p.known_cold_symbols) intern(c);
  std::string out;
  append_le<uint64_t>(out, strings.size());
  append_le<uint64_t>(out, p.known_cold_symbols.size());
  std::string names;
  if (!strings.empty() || !p.known_cold_symbols.empty()) {
    std::string joined;
    bool first = true;
    const auto add = [&](std::string_view s) {
      if (!first) joined += '\x01';
      first = false;
      joined += s;
    };
    for (std::string_view s : strings) add(s);
    for (const std::string& c : p.known_cold_symbols) add(c);
    const std::string z = zlib_compress(joined);
    put_uleb(names, joined.size());
    put_uleb(names, z.size());
    names += z;
  }
  append_le<uint64_t>(out, names.size());
  out += names;
  out.append((8 - names.size() % 8) % 8, '\0');
  append_le<uint64_t>(out, p.known_cold_hashes.size());
  for (uint64_t h : p.known_cold_hashes) append_le<uint64_t>(out, h);
  append_le<uint64_t>(out, p.records.size());
  for (size_t i = 0; i < p.records.size(); ++i) {
    const DataAccessRecord& r = p.records[i];
    append_le<uint64_t>(out, encoded[i].id);
    append_le<uint8_t>(out, r.is_string_literal ? 1 : 0);
    append_le<uint64_t>(out, r.access_count);
    append_le<uint64_t>(out, r.locations.size());
    for (size_t k = 0; k < r.locations.size(); ++k) {
      append_le<uint64_t>(out, encoded[i].files[k]);
      append_le<uint32_t>(out, r.locations[k].line);
    }
  }
  return out;
}

namespace {

// Version 2's call stacks: a frame hash table and a call-stack hash table after the
// records, stacks named by u64 ids.
void write_hashed_stacks(Out& out, const MemProfData& data, const std::vector<uint64_t>& schema,
                         size_t mib_bytes, const std::function<void(HeaderWord, uint64_t)>& patch) {
  const StackTable& t = data.stacks;
  HashTableGenerator records;
  for (const Record& r : data.records) {
    std::string body = start_record_item(
        r.guid, 16 + r.alloc_sites.size() * (8 + mib_bytes) + r.call_sites.size() * 8);
    append_le<uint64_t>(body, r.alloc_sites.size());
    for (size_t a = 0; a < r.alloc_sites.size(); ++a) {
      append_le<uint64_t>(body, t.stack_id(r.alloc_sites[a].stack));
      put_mib(body, r.alloc_sites[a].mib, schema);
    }
    append_le<uint64_t>(body, r.call_sites.size());
    for (const CallSite& c : r.call_sites) append_le<uint64_t>(body, t.stack_id(c.stack));
    finish_record_item(body);
    records.insert(r.guid, std::move(body));
  }
  patch(HeaderWord::record_table, records.emit(out));
  patch(HeaderWord::frame_payload, out.offset());
  HashTableGenerator frames;
  for (uint32_t f = 0; f < t.num_frames(); ++f) {
    const uint64_t id = t.frame_id(f);
    std::string s;
    append_le<uint64_t>(s, 8);
    append_le<uint64_t>(s, 17);
    append_le<uint64_t>(s, id);
    put_frame(s, t.frame(f));
    frames.insert(id, std::move(s));
  }
  patch(HeaderWord::frame_table, frames.emit(out));
  patch(HeaderWord::stack_payload, out.offset());
  HashTableGenerator stacks;
  for (uint32_t st = 0; st < t.num_stacks(); ++st) {
    const uint64_t csid = t.stack_id(st);
    const auto ids = t.frame_indices(st);
    std::string s;
    append_le<uint64_t>(s, 8 * ids.size());
    append_le<uint64_t>(s, csid);
    for (uint32_t f : ids) append_le<uint64_t>(s, t.frame_id(f));
    stacks.insert(csid, std::move(s));
  }
  patch(HeaderWord::stack_table, stacks.emit(out));
}

// Versions 3 and 4: the frame array and the radix tree of call stacks right after the
// schema, then the records, which name stacks by their u32 radix index.
void write_radix_stacks(Out& out, const MemProfData& data, const IndexedLayout& layout,
                        const std::vector<uint64_t>& schema, size_t mib_bytes,
                        const std::function<void(HeaderWord, uint64_t)>& patch) {
  const StackTable& t = data.stacks;
  const uint64_t frames_start = out.offset();
  const auto linear = write_frames_and_radix(out, t);
  const uint64_t record_payload = out.offset();
  HashTableGenerator records;
  for (const Record& r : data.records) {
    size_t size = 16 + r.alloc_sites.size() * (4 + mib_bytes) + r.call_sites.size() * 4;
    if (layout.callee_guids)
      for (const CallSite& c : r.call_sites) size += 8 + 8 * c.callee_guids.size();
    std::string body = start_record_item(r.guid, size);
    append_le<uint64_t>(body, r.alloc_sites.size());
    for (size_t a = 0; a < r.alloc_sites.size(); ++a) {
      append_le<uint32_t>(body, linear[r.alloc_sites[a].stack]);
      put_mib(body, r.alloc_sites[a].mib, schema);
    }
    append_le<uint64_t>(body, r.call_sites.size());
    for (size_t c = 0; c < r.call_sites.size(); ++c) {
      append_le<uint32_t>(body, linear[r.call_sites[c].stack]);
      if (layout.callee_guids) {
        append_le<uint64_t>(body, r.call_sites[c].callee_guids.size());
        for (uint64_t g : r.call_sites[c].callee_guids) append_le<uint64_t>(body, g);
      }
    }
    finish_record_item(body);
    records.insert(r.guid, std::move(body));
  }
  const uint64_t record_table = records.emit(out);
  patch(HeaderWord::stack_payload, frames_start + 17 * t.num_frames());
  patch(HeaderWord::record_payload, record_payload);
  patch(HeaderWord::record_table, record_table);
}

// Writes the section at out.offset(): the version, the header's offsets (patched once
// their sections are written), the summary, the schema, then the version's stack layout.
void write_section(Out& out, const MemProfData& data, const IndexedWriteOptions& options) {
  const IndexedLayout& layout = *indexed_layout(options.version);
  const std::vector<uint64_t> schema = schema_for(options);
  const size_t mib_bytes = schema_mib_size(schema.data(), schema.size());

  const uint64_t section_at = out.offset();
  out.put<uint64_t>(options.version);
  for (size_t i = 0; i < layout.header().size(); ++i) out.put<uint64_t>(0);
  const auto patch = [&](HeaderWord word, uint64_t value) {
    out.patch<uint64_t>(section_at + layout.word_offset(word), value);
  };
  if (layout.summary) {
    const MemProfSummary s = compute_summary(data, false, options.classify);
    out.put<uint32_t>(6);
    out.put<uint64_t>(s.num_contexts);
    out.put<uint64_t>(s.num_cold_contexts);
    out.put<uint64_t>(s.num_hot_contexts);
    out.put<uint64_t>(s.max_cold_total_size);
    out.put<uint64_t>(s.max_warm_total_size);
    out.put<uint64_t>(s.max_hot_total_size);
  }
  out.put<uint64_t>(schema.size());
  for (uint64_t tag : schema) out.put<uint64_t>(tag);
  if (layout.radix_stacks) {
    write_radix_stacks(out, data, layout, schema, mib_bytes, patch);
  } else {
    write_hashed_stacks(out, data, schema, mib_bytes, patch);
  }
  if (layout.word_offset(HeaderWord::data_access) != 0 && !data.data_access.empty()) {
    patch(HeaderWord::data_access, out.offset());
    out.append(write_data_access_payload(data.data_access));
  }
}

}  // namespace

std::string write_memprof_section(const MemProfData& data, const IndexedWriteOptions& options) {
  assert(indexed_layout(options.version) != nullptr);
  Out out(options.section_offset);
  write_section(out, data, options);
  return out.take();
}

std::string write_memprof_only_profile(const MemProfData& data,
                                       const IndexedWriteOptions& options) {
  // An IR-PGO indexed file without records, around the section, as llvm-profdata writes it.
  instrprof::IndexedWriteOptions file;
  file.memprof_section = [&](uint64_t offset) {
    IndexedWriteOptions at = options;
    at.section_offset = offset;
    return write_memprof_section(data, at);
  };
  auto bytes = instrprof::write_indexed_profile(instrprof::Profile{}, 13, file);
  assert(bytes.has_value());  // an empty profile has nothing that can fail
  return std::move(*bytes);
}

}  // namespace profkit::memprof
