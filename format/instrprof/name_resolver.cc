// Builds NameRef -> name tables from a Profile's names.
#include "format/instrprof/name_resolver.h"

#include "format/bytes/hash.h"

namespace profkit::instrprof {

void NameResolver::add(std::string_view name) {
  names_.try_emplace(md5_name_ref(name), name);
}

NameResolver NameResolver::for_writer(const Profile& profile) {
  NameResolver r;
  for (const Record& rec : profile.records) r.add(rec.name);
  for (const std::string& n : profile.vtable_names) r.add(n);
  return r;
}

NameResolver NameResolver::for_reader(const Profile& profile) {
  NameResolver r = for_writer(profile);
  for (const std::string& n : profile.extra_names) r.add(n);
  return r;
}

}  // namespace profkit::instrprof
