// rigorbench's Google Benchmark demo, version 1. Version 2 plants a slower sum (it sorts
// a copy of the vector on every call) and a faster join (appending in place to a reserved string
// instead of building a new string for every word).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

static void BM_SumVector(benchmark::State& state) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(state.range(0)));
  std::iota(values.begin(), values.end(), 1);
  for (auto _ : state) {
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < values.size(); ++i) sum += values[i];
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SumVector)->ArgName("size")->Arg(1000)->Arg(10000);

static void BM_JoinWords(benchmark::State& state) {
  const std::vector<std::string> words(200, "benchmark");
  for (auto _ : state) {
    std::string joined;
    for (const auto& word : words) {
      joined = joined + word + ',';
    }
    benchmark::DoNotOptimize(joined.data());
  }
  state.counters["words"] = static_cast<double>(words.size());
}
BENCHMARK(BM_JoinWords);

static void BM_Broken(benchmark::State& state) {
  for (auto _ : state) {
    state.SkipWithError("the input file is missing");
    break;
  }
}
BENCHMARK(BM_Broken);
