#include "trace.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ostream>

namespace cfsv {

namespace {

int32_t pid_of(const Sched& s, TaskId who, CpuId cpu) {
  if (who) return s.tasks[who].pid;
  return who == kIdle ? 0 : 10 + cpu.v;
}

const char* state_letter(TaskState s) {
  switch (s) {
    case TaskState::sleeping: return "S";
    case TaskState::exited: return "X";
    default: return "R";
  }
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + '"';
}

// ns as microseconds with three decimals, exact.
std::string micros(Nanos ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return buf;
}

// "<comm> <pid> [<cpu>] <secs>: " for the task running on cpu now.
std::string perf_head(const Sched& s, TaskId curr, CpuId cpu, Nanos t) {
  char secs[40], head[96];
  std::snprintf(secs, sizeof secs, "%" PRIu64 ".%06" PRIu64, t / 1000000000, (t % 1000000000) / 1000);
  std::snprintf(head, sizeof head, "%16s %5d [%03d] %12s: ", comm_of(s, curr, cpu).c_str(), pid_of(s, curr, cpu),
                cpu.v, secs);
  return head;
}

std::string perf_switch_line(const Sched& s, const SwitchEvent& e) {
  return perf_head(s, e.prev, e.cpu, e.t) + "sched:sched_switch: prev_comm=" + comm_of(s, e.prev, e.cpu) +
         " prev_pid=" + std::to_string(pid_of(s, e.prev, e.cpu)) + " prev_prio=" + std::to_string(e.prev_prio) +
         " prev_state=" + (e.prev ? state_letter(e.prev_state) : "R") + " ==> next_comm=" + comm_of(s, e.next, e.cpu) +
         " next_pid=" + std::to_string(pid_of(s, e.next, e.cpu)) + " next_prio=" + std::to_string(e.next_prio) + "\n";
}

// "comm=<task> pid=<pid> prio=<prio>", the start of the task events' fields.
std::string perf_task_fields(const Sched& s, TaskId task) {
  return "comm=" + s.tasks[task].name + " pid=" + std::to_string(s.tasks[task].pid) +
         " prio=" + std::to_string(prio_of(s, task));
}

}  // namespace

void write_failed(const std::string& name) {
  const int e = errno;
  throw TraceWriteError("cannot write " + name + (e ? std::string(": ") + std::strerror(e) : std::string()));
}

std::string comm_of(const Sched& s, TaskId who, CpuId cpu) {
  if (who) return s.tasks[who].name;
  return (who == kIdle ? "swapper/" : "migration/") + std::to_string(cpu.v);
}

// ---------------------------------------------------------------------------
// perf script

PerfScriptWriter::PerfScriptWriter(std::ostream& out, std::string name) : out_(out), name_(std::move(name)) {}

void PerfScriptWriter::put(const std::string& line) {
  errno = 0;
  if (!out_.write(line.data(), static_cast<std::streamsize>(line.size()))) write_failed(name_);
}

void PerfScriptWriter::sched_switch(const Sched& s, const SwitchEvent& e) { put(perf_switch_line(s, e)); }

void PerfScriptWriter::sched_wakeup(const Sched& s, TaskId task, bool new_task) {
  const CpuId cpu = s.tasks[task].cpu;
  char target[16];
  std::snprintf(target, sizeof target, "%03d", cpu.v);
  put(perf_head(s, s.rq[cpu].curr, cpu, s.now) + (new_task ? "sched:sched_wakeup_new: " : "sched:sched_wakeup: ") +
      perf_task_fields(s, task) + " target_cpu=" + target + "\n");
}

void PerfScriptWriter::sched_migrate_task(const Sched& s, TaskId task, CpuId orig, CpuId dest) {
  put(perf_head(s, s.rq[orig].curr, orig, s.now) + "sched:sched_migrate_task: " + perf_task_fields(s, task) +
      " orig_cpu=" + std::to_string(orig.v) + " dest_cpu=" + std::to_string(dest.v) + "\n");
}

void PerfScriptWriter::finish() {
  errno = 0;
  if (!out_.flush()) write_failed(name_);
}

// ---------------------------------------------------------------------------
// Perfetto

PerfettoWriter::PerfettoWriter(std::ostream& out, std::string name) : out_(out), name_(std::move(name)) {}

void PerfettoWriter::put(const std::string& event) {
  errno = 0;
  out_ << ",\n" << event;
  if (!out_) write_failed(name_);
}

void PerfettoWriter::start(const Sched& s) {
  if (started_) return;
  started_ = true;
  counters_.resize(s.nr_cpus());
  errno = 0;
  out_ << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out_ << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"CPUs\"}}";
  if (!out_) write_failed(name_);
  put("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"tasks\"}}");
  for (unsigned c = 0; c < s.nr_cpus(); ++c) {
    const std::string cpu = std::to_string(c);
    put("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" + cpu + ",\"args\":{\"name\":\"CPU " + cpu +
        "\"}}");
    put("{\"name\":\"CPU " + cpu +
        "\",\"cat\":\"sched\",\"ph\":\"C\",\"ts\":0.000,\"pid\":0,\"args\":{\"nr_running\":0}}");
  }
}

void PerfettoWriter::name_task(const Sched& s, TaskId task) {
  start(s);
  if (named_.size() <= task.index()) named_.resize(s.tasks.size(), 0);
  if (named_[task.index()] == s.tasks[task].pid) return;
  named_[task.index()] = s.tasks[task].pid;
  put("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(s.tasks[task].pid) +
      ",\"args\":{\"name\":" + json_string(s.tasks[task].name) + "}}");
}

void PerfettoWriter::stretch(const Sched& s, TaskId task, CpuId cpu, Nanos start, Nanos end) {
  const std::string when = ",\"ts\":" + micros(start) + ",\"dur\":" + micros(end - start);
  const std::string c = std::to_string(cpu.v), pid = std::to_string(s.tasks[task].pid);
  put("{\"name\":" + json_string(s.tasks[task].name) + ",\"cat\":\"sched\",\"ph\":\"X\"" + when +
      ",\"pid\":0,\"tid\":" + c + ",\"args\":{\"cpu\":" + c + ",\"pid\":" + pid + "}}");
  put("{\"name\":\"CPU " + c + "\",\"cat\":\"sched\",\"ph\":\"X\"" + when + ",\"pid\":1,\"tid\":" + pid +
      ",\"args\":{\"cpu\":" + c + "}}");
}

void PerfettoWriter::sched_switch(const Sched& s, const SwitchEvent& e) {
  start(s);
  const Nanos since = s.rq[e.cpu].since;
  if (e.prev && e.t > since) {
    name_task(s, e.prev);
    stretch(s, e.prev, e.cpu, since, e.t);
  }
}

void PerfettoWriter::sched_wakeup(const Sched& s, TaskId task, bool new_task) {
  name_task(s, task);
  put(std::string("{\"name\":\"") + (new_task ? "sched_wakeup_new" : "sched_wakeup") +
      "\",\"cat\":\"sched\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + micros(s.now) +
      ",\"pid\":1,\"tid\":" + std::to_string(s.tasks[task].pid) +
      ",\"args\":{\"target_cpu\":" + std::to_string(s.tasks[task].cpu.v) + "}}");
}

void PerfettoWriter::sched_migrate_task(const Sched& s, TaskId task, CpuId orig, CpuId dest) {
  name_task(s, task);
  put("{\"name\":\"sched_migrate_task\",\"cat\":\"sched\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + micros(s.now) +
      ",\"pid\":1,\"tid\":" + std::to_string(s.tasks[task].pid) + ",\"args\":{\"orig_cpu\":" +
      std::to_string(orig.v) + ",\"dest_cpu\":" + std::to_string(dest.v) + "}}");
}

// Changes at one instant (a dequeue and an enqueue of a move) become one
// value: a CPU's value is written once time has moved on.
void PerfettoWriter::nr_running(const Sched& s, CpuId cpu) {
  start(s);
  Counter& k = counters_[cpu.index()];
  if (k.pending && k.t != s.now) flush_counter(cpu);
  k.t = s.now;
  k.value = s.cfs[s.rq[cpu].cfs].h_nr_running;
  k.pending = true;
}

void PerfettoWriter::flush_counter(CpuId cpu) {
  Counter& k = counters_[cpu.index()];
  if (!k.pending) return;
  k.pending = false;
  if (k.value == k.written) return;
  k.written = k.value;
  put("{\"name\":\"CPU " + std::to_string(cpu.v) + "\",\"cat\":\"sched\",\"ph\":\"C\",\"ts\":" + micros(k.t) +
      ",\"pid\":0,\"args\":{\"nr_running\":" + std::to_string(k.value) + "}}");
}

void PerfettoWriter::op(const Sched& s, const Op& o, unsigned line, std::string_view why) {
  start(s);
  const std::string result = why.empty() ? "applied" : "rejected: " + std::string(why);
  put("{\"name\":" + json_string(describe(o)) + ",\"cat\":\"op\",\"ph\":\"i\",\"s\":\"g\",\"ts\":" + micros(s.now) +
      ",\"pid\":0,\"tid\":0,\"args\":{\"line\":" + std::to_string(line) + ",\"result\":" + json_string(result) +
      "}}");
}

void PerfettoWriter::finish(const Sched& s, Nanos at) {
  if (finished_) return;
  finished_ = true;
  start(s);
  for (const Rq& r : s.rq)
    if (r.curr && at > r.since) {
      name_task(s, r.curr);
      stretch(s, r.curr, r.cpu, r.since, at);
    }
  for (const CpuId c : s.rq.ids()) flush_counter(c);
  errno = 0;
  out_ << "\n]}\n";
  if (!out_.flush()) write_failed(name_);
}

// ---------------------------------------------------------------------------
// From a recorded trace

std::string perf_sched_switch_lines(const Sim& sim, CpuId cpu) {
  std::string out;
  for (const SwitchEvent& e : sim.trace().switches)
    if (!cpu || e.cpu == cpu) out += perf_switch_line(sim.sched(), e);
  return out;
}

std::map<Nanos, uint64_t> stretch_histogram(const Sim& sim, CpuId cpu) {
  std::map<Nanos, uint64_t> h;
  for (const Stretch& s : sim.stretches_until_now())
    if (!cpu || s.cpu == cpu) ++h[s.end - s.start];
  return h;
}

}  // namespace cfsv
