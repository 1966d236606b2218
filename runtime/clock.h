// Time since start-up in milliseconds and the current CPU, as MIBs record them.
#pragma once

#include <time.h>

#include "runtime/base.h"

namespace profkit::rt {

uint32_t now_ms();
// At init, after g.time_origin_sec: the coarse clock if `coarse` and its tick is short
// enough, else the exact one.
void init_clock(const timespec& origin, bool coarse);
bool clock_is_coarse();
uint32_t current_cpu();

}  // namespace profkit::rt
