// Replays saved inputs through a fuzz target without libFuzzer: each argument is a file or a
// folder of files (not recursive). Used by ctest on the regression inputs and the seed files, so
// every crash a fuzzing run once found stays fixed in an ordinary (and sanitized) build.
// With DNNPERF_REPLAY_LIMIT_S set, an input that takes more than that many seconds of processor
// time (its own, not the program's start, and not time the machine's load took from it) fails the
// replay with exit 3: how scripts/fuzz.sh judges a libFuzzer timeout again in a release build.
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::cerr << arg.string() << ": no such file or folder\n";
      return 2;
    }
  }
  const char* limit_text = std::getenv("DNNPERF_REPLAY_LIMIT_S");
  const double limit_s = limit_text ? std::atof(limit_text) : 0.0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A crash or an escaping exception names the input last printed.
    std::cout << path.string() << "\n" << std::flush;
    const std::clock_t start = std::clock();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    if (limit_s > 0 && seconds > limit_s) {
      std::cout << path.string() << ": " << seconds << " s of processor time, over the limit of " << limit_s << " s\n";
      return 3;
    }
  }
  std::cout << inputs.size() << " inputs replayed\n";
  return inputs.empty() ? 1 : 0;
}
