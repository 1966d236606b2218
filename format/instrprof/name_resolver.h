// NameRef (MD5 of a PGO name, docs/formats/irpgo.md 2.2) -> name: the symbol table value profiles and
// temporal traces are printed through.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "format/instrprof/profile.h"

namespace profkit::instrprof {

class NameResolver {
 public:
  NameResolver() = default;

  // What `llvm-profdata merge --text` resolves through: the names of the records being
  // written plus the kept vtable names.
  static NameResolver for_writer(const Profile& profile);
  // What a reader's symbol table holds (`show`): record names, extra_names, vtable names.
  static NameResolver for_reader(const Profile& profile);

  // Adds `name` under md5_name_ref(name); the first name wins on a (theoretical) collision.
  void add(std::string_view name);

  // The name whose NameRef is `ref`, or nullptr.
  const std::string* find(uint64_t ref) const {
    auto it = names_.find(ref);
    return it == names_.end() ? nullptr : &it->second;
  }
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<uint64_t, std::string> names_;
};

}  // namespace profkit::instrprof
