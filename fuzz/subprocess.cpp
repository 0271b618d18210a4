#include "fuzz/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace cfsv::fuzz {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::size_t kKeepOutput = 4u << 20;
constexpr auto kGrace = std::chrono::seconds(5);       // SIGINT -> SIGKILL
constexpr auto kDrain = std::chrono::milliseconds(1000);  // after exit, for the pipe

std::vector<std::string> child_env(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view kv = *e;
    const std::string_view key = kv.substr(0, kv.find('='));
    bool drop = false;
    for (const std::string& u : spec.unset_env) drop |= key == u;
    for (const auto& [k, v] : spec.set_env) drop |= key == k;
    if (!drop) env.emplace_back(kv);
  }
  for (const auto& [k, v] : spec.set_env) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}
}  // namespace

std::string ProcessResult::describe() const {
  char buf[128];
  if (!started) return "did not start: " + error;
  if (timed_out)
    std::snprintf(buf, sizeof buf, "timed out after %.1f s", seconds);
  else if (signal)
    std::snprintf(buf, sizeof buf, "killed by signal %d (%s)", signal, strsignal(signal));
  else
    std::snprintf(buf, sizeof buf, "exit %d", exit_code);
  return buf;
}

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult res;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    res.error = std::string("pipe: ") + std::strerror(errno);
    return res;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<std::string> argv_s{spec.exe};
  argv_s.insert(argv_s.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_s = child_env(spec);
  std::vector<char*> argv = c_strings(argv_s), envp = c_strings(env_s);

  const auto start = Clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, spec.exe.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    res.error = spec.exe + ": " + std::strerror(rc);
    return res;
  }
  res.started = true;

  const auto deadline = start + spec.timeout;
  std::optional<Clock::time_point> kill_at, exited_at;
  bool killed = false, eof = false;
  std::string partial;
  auto kill_group = [&](int sig) { kill(-pid, sig); };  // our child's own group only
  auto emit = [&](std::string_view line) {
    if (spec.on_line) spec.on_line(line);
    res.output.append(line).push_back('\n');
    if (res.output.size() > kKeepOutput + kKeepOutput / 4) res.output.erase(0, res.output.size() - kKeepOutput);
  };
  for (;;) {
    if (spec.on_tick) spec.on_tick();
    const auto now = Clock::now();
    if (!killed && now >= deadline) {
      res.timed_out = true;
      kill_group(SIGKILL);
      killed = true;
    }
    if (spec.interrupt && *spec.interrupt && !res.interrupted) {
      res.interrupted = true;
      kill_group(SIGINT);
      kill_at = now + kGrace;
    }
    if (!killed && kill_at && now >= *kill_at) {
      kill_group(SIGKILL);
      killed = true;
    }
    if (!exited_at) {  // exited (not reaped yet, so its pid still names its group)
      siginfo_t info{};
      if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) exited_at = now;
    }
    // Done once it exited and the pipe is drained, or a leftover grandchild
    // still holds the pipe open a while later (it is killed below).
    if (exited_at && (eof || now - *exited_at > kDrain)) break;
    if (eof) {
      poll(nullptr, 0, 20);
      continue;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[8192];
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      eof = true;
      continue;
    }
    partial.append(buf, static_cast<std::size_t>(got));
    std::size_t nl;
    while ((nl = partial.find('\n')) != std::string::npos) {
      emit(std::string_view(partial).substr(0, nl));
      partial.erase(0, nl + 1);
    }
  }
  if (!partial.empty()) emit(partial);
  close(fds[0]);
  kill_group(SIGKILL);  // whatever is left of the child's group; the leader is at most a zombie
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  if (res.timed_out || res.interrupted) {
    // Our own SIGKILL is not the child's failure: report the cause instead.
    if (res.signal == SIGKILL) res.signal = 0;
  }
  return res;
}

TempDir::TempDir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + std::string(prefix) + "XXXXXX";
  if (mkdtemp(tmpl.data())) path_ = tmpl;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace cfsv::fuzz
