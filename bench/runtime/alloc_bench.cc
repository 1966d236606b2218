// Google Benchmark for the runtime's hot path: a malloc/free pair made at a given call
// depth (the walker's cost grows with the frames it replays), and a thousand blocks
// allocated then freed (free lists instead of one reused block). run.sh compiles this with
// -fmemory-profile and links it three ways, like the workloads: plain, compiler-rt, profkit.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

namespace {

// Runs the benchmark loop `depth` frames below the caller (frame pointers kept).
__attribute__((noinline, disable_tail_calls)) void at_depth(benchmark::State& state, int depth,
                                                            void (*body)(benchmark::State&)) {
  if (depth > 1) {
    at_depth(state, depth - 1, body);
    return;
  }
  body(state);
}

void pair_loop(benchmark::State& state) {
  for (auto _ : state) {
    char* p = static_cast<char*>(std::malloc(64));
    benchmark::DoNotOptimize(p);
    p[0] = 1;
    std::free(p);
  }
}

void batch_loop(benchmark::State& state) {
  std::vector<char*> blocks(1000);
  for (auto _ : state) {
    for (size_t i = 0; i < blocks.size(); i++) {
      blocks[i] = static_cast<char*>(std::malloc(32 + i % 96));
      blocks[i][0] = 1;
    }
    for (char* p : blocks) std::free(p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(blocks.size()));
}

void BM_MallocFree(benchmark::State& state) {
  at_depth(state, static_cast<int>(state.range(0)), pair_loop);
}
BENCHMARK(BM_MallocFree)->Arg(1)->Arg(8)->Arg(30);

void BM_ThousandBlocks(benchmark::State& state) { at_depth(state, 4, batch_loop); }
BENCHMARK(BM_ThousandBlocks);

}  // namespace

BENCHMARK_MAIN();
