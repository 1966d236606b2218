// Throughput of the merge pipeline in bytes of raw profile per second: decoding a raw
// image (RawReader with an empty sink), merging it into an existing merge (the steady
// state of `profkit merge` over many inputs), and writing the indexed result. Inputs are
// synthetic LLVM 22 (raw v10, 64-bit) images; the argument is the function count.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

#include "format/bytes/hash.h"
#include "format/instrprof/indexed_writer.h"
#include "format/instrprof/merge.h"
#include "format/instrprof/raw_reader.h"

namespace {

using namespace profkit;
using namespace profkit::instrprof;

void put(std::string& out, uint64_t v, int size) {
  for (int i = 0; i < size; ++i) out += static_cast<char>(v >> (8 * i));
}

// A raw v10 image with `functions` functions of 20 counters each and stored names.
std::string synthesize(int functions) {
  constexpr int kCounters = 20;
  constexpr uint64_t kRecord = 64, kHeader = 128;
  std::string names;
  for (int i = 0; i < functions; ++i) names += (i ? "\x01" : "") + ("function_" + std::to_string(i));
  std::string blob;
  append_uleb128(blob, names.size());
  append_uleb128(blob, 0);
  blob += names;
  const uint64_t cnt_off = kHeader + functions * kRecord;
  std::string out;
  put(out, kRawMagic64, 8);
  put(out, kFlagIR | 10, 8);
  put(out, 0, 8);                             // BinaryIdsSize
  put(out, functions, 8);                     // NumData
  put(out, 0, 8);                             // PaddingBytesBeforeCounters
  put(out, uint64_t(functions) * kCounters, 8);
  put(out, 0, 8);                             // PaddingBytesAfterCounters
  put(out, 0, 8);                             // NumBitmapBytes
  put(out, 0, 8);                             // PaddingBytesAfterBitmapBytes
  put(out, blob.size(), 8);
  put(out, cnt_off - kHeader, 8);             // CountersDelta
  put(out, 0, 8);                             // BitmapDelta
  put(out, 0, 8);                             // NamesDelta
  put(out, 0, 8);                             // NumVTables
  put(out, 0, 8);                             // VNamesSize
  put(out, 2, 8);                             // ValueKindLast
  for (int i = 0; i < functions; ++i) {
    put(out, md5_name_ref("function_" + std::to_string(i)), 8);
    put(out, 0x1234 + i % 7, 8);
    put(out, cnt_off + uint64_t(i) * kCounters * 8 - (kHeader + i * kRecord), 8);
    put(out, 0, 8);  // BitmapPtr
    put(out, 0, 8);  // FunctionPointer
    put(out, 0, 8);  // Values
    put(out, kCounters, 4);
    put(out, 0, 6);  // NumValueSites[3]
    put(out, 0, 2);
    put(out, 0, 4);  // NumBitmapBytes
  }
  for (int i = 0; i < functions * kCounters; ++i) put(out, i % 1000, 8);
  out += blob;
  while (out.size() % 8) out += '\0';
  return out;
}

struct NullSink final : RawSink {
  uint64_t total = 0;
  Expected<void> on_function(const RawFunction& f) override {
    total += f.counts[0];
    return {};
  }
};

void BM_RawRead(benchmark::State& state) {
  const std::string raw = synthesize(static_cast<int>(state.range(0)));
  RawReader reader;
  NullSink sink;
  for (auto _ : state) {
    auto info = reader.read(as_bytes(raw), sink);
    benchmark::DoNotOptimize(info);
  }
  benchmark::DoNotOptimize(sink.total);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(raw.size()));
}
BENCHMARK(BM_RawRead)->Arg(1000)->Arg(20000);

void BM_MergeRaw(benchmark::State& state) {
  const std::string raw = synthesize(static_cast<int>(state.range(0)));
  Merger merger;
  RawReader reader;
  if (!merger.add_raw(as_bytes(raw), 1, reader)) state.SkipWithError("bad synthetic input");
  for (auto _ : state) {
    auto added = merger.add_raw(as_bytes(raw), 1, reader);
    benchmark::DoNotOptimize(added);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(raw.size()));
}
BENCHMARK(BM_MergeRaw)->Arg(1000)->Arg(20000);

void BM_WriteIndexed(benchmark::State& state) {
  const std::string raw = synthesize(static_cast<int>(state.range(0)));
  Merger merger;
  RawReader reader;
  if (!merger.add_raw(as_bytes(raw), 1, reader)) state.SkipWithError("bad synthetic input");
  const Profile merged = merger.finish();
  for (auto _ : state) {
    auto out = write_indexed_profile(merged, 13);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(raw.size()));
}
BENCHMARK(BM_WriteIndexed)->Arg(20000);

}  // namespace
