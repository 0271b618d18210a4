#include "fuzz/libfuzzer.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#if !defined(CFSV_FUZZ_BIN_DIR) || !defined(CFSV_FUZZ_SOURCE_DIR) || !defined(CFSV_FUZZ_TARGETS)
#error "CFSV_FUZZ_BIN_DIR, CFSV_FUZZ_SOURCE_DIR, CFSV_FUZZ_TARGETS: set by fuzz/CMakeLists.txt"
#endif

namespace cfsv::fuzz {

namespace fs = std::filesystem;

std::string default_bin_dir() { return CFSV_FUZZ_BIN_DIR; }

std::vector<std::string> known_targets() {
  std::vector<std::string> out;
  std::string_view all = CFSV_FUZZ_TARGETS;  // "fuzz_a,fuzz_b"
  while (!all.empty()) {
    const std::size_t comma = all.find(',');
    if (comma) out.emplace_back(all.substr(0, comma));
    all = comma == all.npos ? std::string_view{} : all.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> resolve_target(std::string_view name) {
  for (const std::string& t : known_targets())
    if (t == name || t == "fuzz_" + std::string(name)) return t;
  return std::nullopt;
}

namespace {
std::string existing_subdir(const char* root, std::string_view target) {
  std::error_code ec;
  std::string_view shortname = target;
  if (shortname.starts_with("fuzz_")) shortname.remove_prefix(5);
  for (std::string_view n : {shortname, target}) {
    const fs::path p = fs::path(CFSV_FUZZ_SOURCE_DIR) / root / n;
    if (fs::is_directory(p, ec)) return p.string();
  }
  return "";
}

std::optional<uint64_t> number_after(std::string_view line, std::string_view key) {
  const std::size_t at = line.find(key);
  if (at == line.npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == ':')) rest.remove_prefix(1);
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc{} || end == rest.data()) return std::nullopt;
  return v;
}
}  // namespace

std::string seed_corpus_dir(std::string_view target) { return existing_subdir("corpus", target); }
std::string regressions_dir(std::string_view target) { return existing_subdir("regressions", target); }

uint32_t libfuzzer_seed(uint64_t seed) {
  if (seed >= 1 && seed <= UINT32_MAX) return static_cast<uint32_t>(seed);
  const uint32_t folded = static_cast<uint32_t>(seed ^ (seed >> 32));
  return folded ? folded : 1;
}

bool copy_corpus(const std::string& from, const std::string& to, std::string* error) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return *error = "cannot create " + to + ": " + ec.message(), false;
  if (from.empty() || !fs::is_directory(from, ec)) return true;
  for (const auto& e : fs::directory_iterator(from, ec)) {
    if (!e.is_regular_file()) continue;
    fs::copy_file(e.path(), fs::path(to) / e.path().filename(), fs::copy_options::skip_existing, ec);
    if (ec) return *error = "cannot copy " + e.path().string() + ": " + ec.message(), false;
  }
  if (ec) return *error = "cannot read " + from + ": " + ec.message(), false;
  return true;
}

std::size_t count_files(const std::string& dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) ++n;
  return n;
}

std::optional<FuzzProgress> parse_progress(std::string_view line) {
  if (line.size() < 2 || line[0] != '#') return std::nullopt;
  FuzzProgress p;
  const auto [end, ec] = std::from_chars(line.data() + 1, line.data() + line.size(), p.execs);
  if (ec != std::errc{}) return std::nullopt;
  std::string_view rest = line.substr(static_cast<std::size_t>(end - line.data()));
  if (rest.starts_with(":")) {
    p.event = "fork";
  } else {
    while (!rest.empty() && (rest.front() == '\t' || rest.front() == ' ')) rest.remove_prefix(1);
    p.event = std::string(rest.substr(0, rest.find_first_of(" \t")));
  }
  const auto cov = number_after(line, "cov:");
  const auto corp = number_after(line, "corp:");
  const auto eps = number_after(line, "exec/s");  // fork mode has no colon
  if (!cov || !corp || !eps) return std::nullopt;
  p.cov = *cov;
  p.corpus_units = *corp;
  p.exec_per_s = *eps;
  return p;
}

FuzzOutcome run_libfuzzer(const FuzzRun& run) {
  FuzzOutcome out;
  auto& a = out.args;
  a.push_back("-seed=" + std::to_string(run.seed));
  if (run.runs) a.push_back("-runs=" + std::to_string(run.runs));
  if (run.max_total_time) a.push_back("-max_total_time=" + std::to_string(run.max_total_time));
  if (run.jobs > 1) a.push_back("-fork=" + std::to_string(run.jobs));
  a.push_back("-artifact_prefix=" + (fs::path(run.artifact_dir) / "").string());
  a.push_back("-print_final_stats=1");
  a.push_back("-timeout=10");  // seconds per input: a hang is a crash
  a.insert(a.end(), run.corpus.begin(), run.corpus.end());

  ProcessSpec spec;
  spec.exe = run.exe;
  spec.args = a;
  spec.cwd = run.work_dir;
  spec.timeout = run.timeout;
  spec.interrupt = run.interrupt;
  if (run.claim)
    spec.set_env.emplace_back("CFSV_CLAIM", *run.claim);
  else
    spec.unset_env.push_back("CFSV_CLAIM");
  if (run.budget)
    spec.set_env.emplace_back("CFSV_BUDGET", *run.budget);
  else
    spec.unset_env.push_back("CFSV_BUDGET");
  Counterexample reported;  // being read; the first complete one is kept
  spec.on_line = [&](std::string_view line) {
    if (run.on_line) run.on_line(line);
    if (auto p = parse_progress(line)) {
      out.execs = std::max(out.execs, p->execs);
      out.exec_per_s = p->exec_per_s;
      out.corpus_units = p->corpus_units;
      if (run.on_progress) run.on_progress(*p);
      return;
    }
    if (line.find(kCounterexampleLine) != line.npos) {
      const bool next = line.find(std::string(kCounterexampleLine) + "claim ") != line.npos;
      if (next && !reported.empty() && !out.counterexample) out.counterexample = reported;
      if (!out.counterexample) parse_counterexample_line(line, reported);
      return;
    }
    constexpr std::string_view kWritten = "Test unit written to ";
    if (const std::size_t at = line.find(kWritten); at != line.npos) {
      std::string path(line.substr(at + kWritten.size()));
      if (std::find(out.crash_files.begin(), out.crash_files.end(), path) == out.crash_files.end())
        out.crash_files.push_back(path);
      return;
    }
    if (auto v = number_after(line, "stat::number_of_executed_units:")) out.execs = std::max(out.execs, *v);
    if (auto v = number_after(line, "stat::average_exec_per_sec:")) out.exec_per_s = *v;
    if (out.error_line.empty() && (line.find("ERROR:") != line.npos || line.find("check failed:") != line.npos ||
                                   line.find("runtime error:") != line.npos))
      out.error_line = std::string(line);
  };
  out.process = run_process(spec);
  if (!out.counterexample && !reported.empty()) out.counterexample = reported;
  const ProcessResult& pr = out.process;
  out.crashed = !out.crash_files.empty() || (pr.started && !pr.timed_out && !pr.interrupted && !pr.ok());
  if (!run.corpus.empty()) out.corpus_units = count_files(run.corpus.front());
  return out;
}

}  // namespace cfsv::fuzz
