// A map kept as one sorted vector of (key, value) pairs, for the per-line records of a
// sample profile: a profile holds millions of them (profgen adds one per probe of every
// sampled frame), and a std::map node per record costs twice the record's own size and a
// cache miss per tree level. Records mostly arrive in key order (readers, profgen's probe
// walks) and are appended. A key that arrives out of order waits in a small std::map and
// joins the vector in one merge at the next read, so that no input order (a hand-written
// or hostile profile listing its lines backwards) costs more than n log n. Unlike std::map,
// an insertion invalidates iterators into the map, and a read after an out-of-order
// insertion sorts the map, through a const reference too: a map must not be read from two
// threads before it has been read once after its last insertion.
#pragma once

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace profkit::sampleprof {

template <class K, class V>
class FlatMap {
 public:
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return settled().begin(); }
  iterator end() { return settled().end(); }
  const_iterator begin() const { return settled().begin(); }
  const_iterator end() const { return settled().end(); }
  size_t size() const { return items_.size() + pending_.size(); }
  bool empty() const { return items_.empty() && pending_.empty(); }
  void clear() {
    items_.clear();
    pending_.clear();
  }
  void shrink_to_fit() { settled().shrink_to_fit(); }

  iterator lower_bound(const K& k) {
    return std::lower_bound(begin(), end(), k, KeyLess{});
  }
  const_iterator lower_bound(const K& k) const {
    return std::lower_bound(begin(), end(), k, KeyLess{});
  }
  iterator find(const K& k) {
    auto it = lower_bound(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  const_iterator find(const K& k) const {
    auto it = lower_bound(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  size_t count(const K& k) const { return find(k) != end() ? 1 : 0; }

  // The value of `k`, a default one added if absent. The reference lasts until the next
  // insertion or read.
  V& operator[](const K& k) {
    if (items_.empty() || items_.back().first < k) return items_.emplace_back(k, V{}).second;
    // Keys waiting in pending_ are all below items_.back() (they were when they came).
    if (!pending_.empty())
      if (auto p = pending_.find(k); p != pending_.end()) return p->second;
    auto it = std::lower_bound(items_.begin(), items_.end(), k, KeyLess{});
    if (it->first == k) return it->second;  // it is not end(): k <= items_.back().first
    if (items_.end() - it <= kNearEnd) return items_.emplace(it, k, V{})->second;
    return pending_[k];
  }
  iterator erase(const_iterator it) { return items_.erase(it); }

  // Adds a default value for each of `keys` (ascending) not present, in one pass over the
  // map (a merge of two profiles, not an insertion per new key).
  template <class Keys>
  void add_keys(const Keys& keys) {
    settled();
    const size_t old = items_.size();
    auto at = items_.begin();
    for (const K& k : keys) {
      at = std::lower_bound(at, items_.begin() + static_cast<std::ptrdiff_t>(old), k, KeyLess{});
      if (at == items_.begin() + static_cast<std::ptrdiff_t>(old) || at->first != k) {
        const auto pos = at - items_.begin();
        items_.emplace_back(k, V{});  // may reallocate: `at` is found again from its index
        at = items_.begin() + pos;
      }
    }
    merge_tail(old);
  }

 private:
  // An insertion this close to the end moves a few records at most: cheaper than the detour.
  static constexpr std::ptrdiff_t kNearEnd = 16;
  struct KeyLess {
    bool operator()(const value_type& a, const K& k) const { return a.first < k; }
  };
  // items_[old, end) ascending and disjoint from items_[0, old): one sorted vector.
  void merge_tail(size_t old) const {
    if (items_.size() != old)
      std::inplace_merge(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(old),
                         items_.end(), [](const value_type& a, const value_type& b) {
                           return a.first < b.first;
                         });
  }
  std::vector<value_type>& settled() const {
    if (!pending_.empty()) {
      const size_t old = items_.size();
      items_.reserve(old + pending_.size());
      for (auto& [k, v] : pending_) items_.emplace_back(k, std::move(v));
      pending_.clear();
      merge_tail(old);
    }
    return items_;
  }
  mutable std::vector<value_type> items_;  // ascending keys, unique
  mutable std::map<K, V> pending_;         // keys that came out of order, none in items_
};

}  // namespace profkit::sampleprof
