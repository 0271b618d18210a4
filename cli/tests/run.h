// Test helpers: run a command with its output captured, its peak memory, and
// python3's parsers on cfsv's outputs (validate.py).
#pragma once
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cfsv::cli::test {

struct Output {
  int code;
  std::string out, err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A file name in the test's working directory, unique to the running test.
inline std::string temp_path(const std::string& suffix) {
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string("cli_test_") + t->test_suite_name() + "_" + t->name() + suffix;
}

inline std::string sh_quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

// Runs argv through /bin/sh, stdout and stderr captured.
inline Output run(const std::vector<std::string>& argv) {
  const std::string out = temp_path(".out"), err = temp_path(".err");
  std::string cmd;
  for (const std::string& a : argv) cmd += sh_quote(a) + " ";
  const int status = std::system((cmd + ">" + out + " 2>" + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

// The built cfsv with `args`.
inline Output cfsv(std::vector<std::string> args) {
  args.insert(args.begin(), CFSV_BIN);
  return run(args);
}

// validate.py MODE FILE ARGS...; the test fails if python rejects the file.
inline std::string validate(const std::string& mode, const std::string& file, std::vector<std::string> args = {}) {
  std::vector<std::string> argv = {CFSV_PYTHON, CFSV_VALIDATE, mode, file};
  argv.insert(argv.end(), args.begin(), args.end());
  const Output r = run(argv);
  EXPECT_EQ(r.code, 0) << "validate.py " << mode << " " << file << ": " << r.err;
  return r.out;
}

inline std::string write_temp(const std::string& suffix, const std::string& text) {
  const std::string path = temp_path(suffix);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The peak RSS (KB) of a command run with stdout to /dev/null; it must exit 0.
inline long max_rss_kb(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return ru.ru_maxrss;
}

}  // namespace cfsv::cli::test
