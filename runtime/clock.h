// Time since start-up in milliseconds and the current CPU, as MIBs record them.
#pragma once

#include <time.h>

#include "runtime/base.h"

namespace profkit::rt {

uint32_t now_ms();
void init_clock(const timespec& origin);  // at init, after g.time_origin_sec
uint32_t current_cpu();

}  // namespace profkit::rt
