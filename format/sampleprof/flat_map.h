// A map kept as one sorted vector of (key, value) pairs, for the per-line records of a
// sample profile: a profile holds millions of them (profgen adds one per probe of every
// sampled frame), and a std::map node per record costs twice the record's own size and a
// cache miss per tree level. Records mostly arrive in key order (readers, profgen's probe
// walks) and are appended; an insertion elsewhere moves the larger keys. Unlike std::map,
// an insertion invalidates iterators and references into the map.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace profkit::sampleprof {

template <class K, class V>
class FlatMap {
 public:
  using value_type = std::pair<K, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  void shrink_to_fit() { items_.shrink_to_fit(); }

  iterator lower_bound(const K& k) {
    return std::lower_bound(items_.begin(), items_.end(), k, KeyLess{});
  }
  const_iterator lower_bound(const K& k) const {
    return std::lower_bound(items_.begin(), items_.end(), k, KeyLess{});
  }
  iterator find(const K& k) {
    auto it = lower_bound(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  const_iterator find(const K& k) const {
    auto it = lower_bound(k);
    return it != items_.end() && it->first == k ? it : items_.end();
  }
  size_t count(const K& k) const { return find(k) != items_.end() ? 1 : 0; }

  V& operator[](const K& k) {
    if (items_.empty() || items_.back().first < k) return items_.emplace_back(k, V{}).second;
    auto it = lower_bound(k);
    if (it == items_.end() || it->first != k) it = items_.emplace(it, k, V{});
    return it->second;
  }
  // Inserts (k, v) unless k is present; `hint` is where k would go if the caller knows it.
  iterator emplace_hint(const_iterator hint, const K& k, V v) {
    const bool fits = (hint == items_.begin() || std::prev(hint)->first < k) &&
                      (hint == items_.end() || k < hint->first);
    if (!fits) {
      auto it = lower_bound(k);
      if (it != items_.end() && it->first == k) return it;
      hint = it;
    }
    return items_.emplace(hint, k, std::move(v));
  }
  iterator erase(const_iterator it) { return items_.erase(it); }

  // Adds a default value for each of `keys` (ascending) not present, in one pass over the
  // map (a merge of two profiles, not an insertion per new key).
  template <class Keys>
  void add_keys(const Keys& keys) {
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
    if (items_.size() != old)
      std::inplace_merge(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(old),
                         items_.end(), [](const value_type& a, const value_type& b) {
                           return a.first < b.first;
                         });
  }

 private:
  struct KeyLess {
    bool operator()(const value_type& a, const K& k) const { return a.first < k; }
  };
  std::vector<value_type> items_;  // ascending keys, unique
};

}  // namespace profkit::sampleprof
