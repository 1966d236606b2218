// The one entry point every command reads IR-PGO profiles through: sniffs raw, indexed or
// text and returns a Profile. Also re-exports the NameRef -> name symbol table.
#pragma once

#include "format/bytes/cursor.h"
#include "format/instrprof/name_resolver.h"
#include "format/instrprof/profile.h"

namespace profkit::instrprof {

// Raw magic -> raw reader; indexed magic -> indexed reader; printable text -> text reader;
// anything else -> bad_magic.
Expected<Profile> read_profile(Bytes data);

}  // namespace profkit::instrprof
