// The main() of <target>_rate (fuzz builds, ops targets): every input named
// on the command line read into memory, then ROUNDS rounds over them in that
// order, each input once a round; prints executions per CPU second (user and
// system time, as clock() counts them). Inputs interleave as in a campaign,
// where the next input is rarely the last one: libFuzzer's `-runs=N FILE...`
// runs each file N times in a row and reads it from disk each time, so it
// neither sees what a change of input costs nor only what the target costs.
// docs/fuzz-throughput.md.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  const int rounds = argc >= 3 ? std::atoi(argv[1]) : 0;
  if (rounds <= 0) {
    std::fprintf(stderr, "usage: %s ROUNDS FILE...\n", argv[0]);
    return 2;
  }
  std::vector<std::vector<uint8_t>> inputs;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
      return 2;
    }
    inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::clock_t start = std::clock();
  for (int r = 0; r < rounds; ++r)
    for (const std::vector<uint8_t>& in : inputs) LLVMFuzzerTestOneInput(in.data(), in.size());
  const double cpu_s = double(std::clock() - start) / CLOCKS_PER_SEC;
  const double runs = double(rounds) * double(inputs.size());
  std::printf("%.0f executions of %zu inputs in %.3f CPU s: %.0f per CPU s\n", runs, inputs.size(), cpu_s,
              cpu_s > 0 ? runs / cpu_s : 0.0);
  return 0;
}
