#include "trace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ostream>

namespace cfsv {

namespace {
int32_t pid_of(const Sim& sim, TaskId who, CpuId cpu) {
  if (who) return sim.tasks()[who].pid;
  return who == kIdle ? 0 : 10 + cpu.v;
}
int prio_of(const Sim& sim, TaskId who) {
  if (who) return 120 + sim.tasks()[who].nice;
  return who == kIdle ? 120 : 0;
}
const char* state_letter(TaskState s) {
  switch (s) {
    case TaskState::sleeping: return "S";
    case TaskState::exited: return "X";
    default: return "R";
  }
}
void json_string(std::ostream& out, std::string_view s) {
  out << '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') out << '\\' << ch;
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out << buf;
    } else out << ch;
  }
  out << '"';
}
// ns as microseconds with three decimals, exact.
std::string micros(Nanos ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return buf;
}
}  // namespace

std::string comm_of(const Sim& sim, TaskId who, CpuId cpu) {
  if (who) return sim.tasks()[who].name;
  return (who == kIdle ? "swapper/" : "migration/") + std::to_string(cpu.v);
}

std::string perf_sched_switch_lines(const Sim& sim, CpuId cpu) {
  std::string out;
  char head[96];
  for (const SwitchEvent& s : sim.trace().switches) {
    if (cpu && s.cpu != cpu) continue;
    const std::string prev = comm_of(sim, s.prev, s.cpu), next = comm_of(sim, s.next, s.cpu);
    char secs[40];
    std::snprintf(secs, sizeof secs, "%" PRIu64 ".%06" PRIu64, s.t / 1000000000, (s.t % 1000000000) / 1000);
    std::snprintf(head, sizeof head, "%16s %5d [%03d] %12s: ", prev.c_str(), pid_of(sim, s.prev, s.cpu), s.cpu.v, secs);
    out += head;
    out += "sched:sched_switch: prev_comm=" + prev + " prev_pid=" + std::to_string(pid_of(sim, s.prev, s.cpu)) +
           " prev_prio=" + std::to_string(prio_of(sim, s.prev)) + " prev_state=" +
           (s.prev ? state_letter(s.prev_state) : "R") + " ==> next_comm=" + next +
           " next_pid=" + std::to_string(pid_of(sim, s.next, s.cpu)) +
           " next_prio=" + std::to_string(prio_of(sim, s.next)) + "\n";
  }
  return out;
}

void write_perfetto_json(const Sim& sim, std::ostream& out) {
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"CPUs\"}}";
  for (unsigned c = 0; c < sim.nr_cpus(); ++c)
    out << ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" << c << ",\"args\":{\"name\":\"CPU " << c
        << "\"}}";
  for (const Stretch& s : sim.stretches_until_now()) {
    out << ",\n{\"name\":";
    json_string(out, sim.tasks()[s.task].name);
    out << ",\"cat\":\"sched\",\"ph\":\"X\",\"ts\":" << micros(s.start) << ",\"dur\":" << micros(s.end - s.start)
        << ",\"pid\":0,\"tid\":" << s.cpu.v << ",\"args\":{\"cpu\":" << s.cpu.v
        << ",\"pid\":" << sim.tasks()[s.task].pid << "}}";
  }
  out << "\n]}\n";
}

std::map<Nanos, uint64_t> stretch_histogram(const Sim& sim, CpuId cpu) {
  std::map<Nanos, uint64_t> h;
  for (const Stretch& s : sim.stretches_until_now())
    if (!cpu || s.cpu == cpu) ++h[s.end - s.start];
  return h;
}

std::string format_histogram(const std::map<Nanos, uint64_t>& h, std::size_t top) {
  std::vector<std::pair<Nanos, uint64_t>> v(h.begin(), h.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < top; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64 "ms x %" PRIu64, i ? ", " : "", v[i].first / 1000000,
                  v[i].first % 1000000, v[i].second);
    out += buf;
  }
  if (v.size() > top) out += ", ...";
  return out;
}

}  // namespace cfsv
