#include "fuzz/libfuzzer.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

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

// The inputs libFuzzer wrote to an artifact directory (crash-<sha1>,
// timeout-..., oom-..., leak-...), oldest first.
std::vector<fs::path> artifacts_in(const std::string& dir) {
  std::vector<std::pair<fs::file_time_type, fs::path>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || name.find('.') != name.npos) continue;
    for (const std::string_view kind : {"crash-", "timeout-", "oom-", "leak-"})
      if (name.starts_with(kind)) found.emplace_back(e.last_write_time(ec), e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [t, p] : found) out.push_back(std::move(p));
  return out;
}
}  // namespace

std::string seed_corpus_dir(std::string_view target) { return existing_subdir("corpus", target); }
std::string regressions_dir(std::string_view target) { return existing_subdir("regressions", target); }
std::string corpus_home(std::string_view target) {
  const std::string seeds = seed_corpus_dir(target);
  if (!seeds.empty()) return seeds;
  if (target.starts_with("fuzz_")) target.remove_prefix(5);
  return (fs::path(CFSV_FUZZ_SOURCE_DIR) / "corpus" / target).string();
}

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
  constexpr std::string_view kCounts = "oom/timeout/crash: ";  // fork mode: "a/b/c"
  if (const std::size_t at = line.find(kCounts); at != line.npos) {
    std::string_view counts = line.substr(at + kCounts.size());
    counts = counts.substr(0, counts.find(' '));
    p.crashes = number_after(counts.substr(counts.rfind('/') + 1), "").value_or(0);
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

std::vector<std::string> libfuzzer_options(const std::string& exe) {
  std::vector<std::string> out;
  std::ifstream in(exe + ".options");
  bool section = false;
  const auto trim = [](std::string_view v) {
    const std::size_t b = v.find_first_not_of(" \t\r"), e = v.find_last_not_of(" \t\r");
    return b == v.npos ? std::string_view{} : v.substr(b, e - b + 1);
  };
  for (std::string line; std::getline(in, line);) {
    const std::string_view l = trim(line);
    if (l.empty() || l[0] == '#' || l[0] == ';') continue;
    if (l[0] == '[') {
      section = l == "[libfuzzer]";
      continue;
    }
    const std::size_t eq = l.find('=');
    if (section && eq != l.npos)
      out.push_back("-" + std::string(trim(l.substr(0, eq))) + "=" + std::string(trim(l.substr(eq + 1))));
  }
  return out;
}

namespace {
constexpr std::string_view kPerInputTimeout = "-timeout=10";  // seconds per input: a hang is a crash

// The target, its environment and cwd, as `run` sets them.
ProcessSpec spec_for(const FuzzRun& run, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.exe = run.exe;
  spec.args = libfuzzer_options(run.exe);  // first: the command's own flags win
  spec.args.insert(spec.args.end(), args.begin(), args.end());
  spec.cwd = run.work_dir;
  spec.timeout = run.timeout;
  spec.interrupt = run.interrupt;
  spec.on_tick = run.on_tick;
  if (run.claim)
    spec.set_env.emplace_back("CFSV_CLAIM", *run.claim);
  else
    spec.unset_env.push_back("CFSV_CLAIM");
  if (run.budget)
    spec.set_env.emplace_back("CFSV_BUDGET", *run.budget);
  else
    spec.unset_env.push_back("CFSV_BUDGET");
  return spec;
}
}  // namespace

FuzzOutcome run_libfuzzer(const FuzzRun& run) {
  FuzzOutcome out;
  auto& a = out.args;
  a.push_back("-seed=" + std::to_string(run.seed));
  if (run.runs) a.push_back("-runs=" + std::to_string(run.runs));
  if (run.max_total_time) a.push_back("-max_total_time=" + std::to_string(run.max_total_time));
  if (run.jobs > 1 || run.keep_going) a.push_back("-fork=" + std::to_string(std::max(run.jobs, 1u)));
  if (run.keep_going) a.push_back("-ignore_crashes=1");
  if (run.reproducible_from) {
    a.insert(a.end(), {"-use_cmp=0", "-reload=0"});
    std::vector<std::string> seeds;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(*run.reproducible_from, ec))
      if (e.is_regular_file()) seeds.push_back(e.path().string());
    std::sort(seeds.begin(), seeds.end());
    std::string list;
    for (const std::string& f : seeds) list += (list.empty() ? "" : ",") + f;
    if (!list.empty()) a.push_back("-seed_inputs=" + list);
  }
  a.push_back("-artifact_prefix=" + (fs::path(run.artifact_dir) / "").string());
  a.push_back("-print_final_stats=1");
  a.emplace_back(kPerInputTimeout);
  a.insert(a.end(), run.corpus.begin(), run.corpus.end());

  ProcessSpec spec = spec_for(run, a);
  out.args = spec.args;
  const std::vector<fs::path> old_artifacts = artifacts_in(run.artifact_dir);
  Counterexample reported;  // being read; the first complete one is kept
  spec.on_line = [&](std::string_view line) {
    if (run.on_line) run.on_line(line);
    if (auto p = parse_progress(line)) {
      out.execs = std::max(out.execs, p->execs);
      out.exec_per_s = p->exec_per_s;
      out.corpus_units = p->corpus_units;
      p->crashes = std::max<uint64_t>(p->crashes, out.crash_files.size());
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
  // Fork mode's workers write their crash inputs without the parent naming them.
  for (const fs::path& p : artifacts_in(run.artifact_dir)) {
    const auto same = [&](const auto& q) { return fs::path(q).filename() == p.filename(); };
    if (std::none_of(old_artifacts.begin(), old_artifacts.end(), same) &&
        std::none_of(out.crash_files.begin(), out.crash_files.end(), same))
      out.crash_files.push_back(p.string());
  }
  if (!out.counterexample && !reported.empty()) out.counterexample = reported;
  const ProcessResult& pr = out.process;
  out.crashed = !out.crash_files.empty() || (pr.started && !pr.timed_out && !pr.interrupted && !pr.ok());
  if (!run.corpus.empty()) out.corpus_units = count_files(run.corpus.front());
  return out;
}

Minimized minimize_crash(const FuzzRun& like, const std::string& input, uint64_t seconds, const std::string& out) {
  Minimized m;
  TempDir dir("cfsv-minimize-");
  if (!dir.ok()) return m.error = "cannot create a temporary directory", m;
  std::error_code ec;
  const std::string in = fs::absolute(input, ec).string();
  m.bytes = static_cast<std::size_t>(fs::file_size(in, ec));
  if (ec) return m.error = "cannot read " + input + ": " + ec.message(), m;
  FuzzRun run = like;
  run.work_dir = dir.path();
  // libFuzzer minimises in rounds, each a child process that stops at the
  // first smaller input that still crashes (written to the artifact prefix);
  // the round that finds none takes its whole -max_total_time. The budget
  // bounds them all: at the deadline the smallest input so far is kept.
  run.timeout = std::chrono::seconds(seconds + 5);
  std::string last;  // the input of the latest round, or the final one
  ProcessSpec spec = spec_for(run, {"-minimize_crash=1", "-max_total_time=" + std::to_string(seconds),
                                    "-artifact_prefix=" + dir.path() + "/", std::string(kPerInputTimeout), in});
  spec.on_line = [&](std::string_view line) {
    // "CRASH_MIN: minimizing crash input: '<path>' (<n> bytes)" starts a round;
    // "CRASH_MIN: failed to minimize beyond <path> (<n> bytes), exiting" ends them.
    for (const std::string_view key : {"CRASH_MIN: minimizing crash input: '", "CRASH_MIN: failed to minimize beyond "}) {
      if (!line.starts_with(key)) continue;
      std::string_view path = line.substr(key.size());
      path = path.substr(0, path.rfind(" ("));
      if (path.ends_with('\'')) path.remove_suffix(1);
      last = std::string(path);
    }
  };
  m.process = run_process(spec);
  if (last.empty() || last == in) return m;
  fs::copy_file(last, out, fs::copy_options::overwrite_existing, ec);
  if (ec) return m.error = "cannot write " + out + ": " + ec.message(), m;
  m.smaller = true;
  m.bytes = static_cast<std::size_t>(fs::file_size(out, ec));
  return m;
}

Merged merge_corpus(const FuzzRun& like, const std::string& into, const std::vector<std::string>& from) {
  Merged m;
  const std::size_t before = count_files(into);
  std::vector<std::string> args{"-merge=1", std::string(kPerInputTimeout), into};
  args.insert(args.end(), from.begin(), from.end());
  m.process = run_process(spec_for(like, std::move(args)));
  const std::size_t after = count_files(into);
  m.added = after > before ? after - before : 0;
  return m;
}

}  // namespace cfsv::fuzz
