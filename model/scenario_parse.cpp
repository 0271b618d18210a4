// The parser of scenario files (docs/scenario-format.md): line by line, then
// the whole-file checks of the timeline, the CPUs and the run's end.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <span>
#include <type_traits>

#include "arith/fair_math.h"
#include "arith/weights.h"
#include "op_table.h"
#include "scenario_parser.h"
#include "scenario_text.h"
#include "scenario_values.h"

namespace cfsv {

using namespace scenario_text;

namespace {

struct CpuUse {
  SourceLoc loc;  // the largest CPU number of a list
  unsigned max_cpu = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  ParseResult parse() {
    try {
      if (text_.size() > kMaxInputBytes) {
        line_ = 0;
        fail(0, "input is larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB");
      }
      std::size_t pos = 0;
      while (pos <= text_.size()) {
        std::size_t nl = text_.find('\n', pos);
        if (nl == std::string_view::npos) nl = text_.size();
        ++line_;
        statement(text_.substr(pos, nl - pos));
        pos = nl + 1;
      }
      finish();
    } catch (const ParseFailure& f) {
      return ParseError{std::string(file_), f.loc.line, f.loc.col, f.message};
    }
    return std::move(s_);
  }

 private:
  [[noreturn]] void fail(unsigned col, std::string msg) { fail_at(here(col), std::move(msg)); }
  // "a, b, c": name(item) of each item, for an error's list of what is known.
  template <class R, class F> static std::string names_of(const R& items, F name) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : ", ") + std::string(name(i));
    return s;
  }
  SourceLoc here(unsigned col) const { return {line_, col}; }

  // ---- tokens ------------------------------------------------------------

  void statement(std::string_view line) {
    toks_ = tokenize(line);
    if (toks_.empty()) return;
    const std::string_view kw = toks_[0].text;
    if (kw == "kernel") return st_kernel();
    if (kw == "topology") return st_topology();
    if (kw == "set") return st_set();
    if (kw == "feature") return st_feature();
    if (kw == "group") return st_group();
    if (kw == "task") return st_task();
    if (kw == "at") return st_at();
    if (kw == "run") return st_run();
    if (kw == "seed")
      fail(toks_[0].col, "the 'seed' statement is gone: the model makes no random choices, so no seed is read; "
                         "delete this line");
    fail(toks_[0].col, "unknown statement " + quote(kw) +
                           " (expected kernel, topology, set, feature, group, task, at or run)");
  }

  // Exactly n tokens from index first on (else: what is missing / what is extra).
  void expect_args(std::size_t first, std::size_t n, std::string_view usage) {
    if (toks_.size() < first + n) fail(toks_.back().end(), "missing argument; expected " + std::string(usage));
    if (toks_.size() > first + n)
      fail(toks_[first + n].col, "unexpected " + quote(toks_[first + n].text) + "; expected " + std::string(usage));
  }
  void expect_some(std::size_t first, std::string_view usage) {
    if (toks_.size() <= first) fail(toks_.back().end(), "missing argument; expected " + std::string(usage));
  }

  KeyValue key_value(const Token& t) { return scenario_text::key_value(t, line_); }
  // key=value pairs from toks_[first] on, each key at most once.
  std::vector<KeyValue> key_values(std::size_t first) { return scenario_text::key_values(toks_, first, line_); }

  // ---- values ------------------------------------------------------------

  uint64_t number(std::string_view text, unsigned col, std::string_view what, uint64_t lo, uint64_t hi) {
    return number_at(here(col), text, what, lo, hi);
  }
  Nanos duration(std::string_view text, unsigned col, std::string_view what, Nanos lo = 0,
                 Nanos hi = kMaxScenarioTime) {
    std::string why;
    const std::optional<Nanos> d = parse_duration(text, &why);
    if (!d) fail(col, "bad " + std::string(what) + " " + quote(text) + ": " + why);
    if (*d < lo || *d > hi)
      fail(col, std::string(what) + " " + quote(text) + " is out of range [" + format_duration(lo) + ", " +
                    format_duration(hi) + "]");
    return *d;
  }
  int nice_value(std::string_view text, unsigned col) {
    const bool neg = !text.empty() && text[0] == '-';
    const std::string_view digits = neg ? text.substr(1) : text;
    uint64_t v = 0;
    if (!all_digits(digits)) fail(col, "expected a nice value (-20..19), got " + quote(text));
    const uint64_t limit = neg ? uint64_t(-kNiceMin) : uint64_t(kNiceMax);
    if (!to_uint(digits, limit, v)) fail(col, "nice " + quote(text) + " is out of range [-20, 19]");
    return neg ? -static_cast<int>(v) : static_cast<int>(v);
  }
  Policy policy_value(std::string_view v, unsigned col) {
    for (unsigned i = 0; i < std::size(kPolicyNames); ++i)
      if (v == kPolicyNames[i]) return static_cast<Policy>(i);
    fail(col, "expected a policy (normal, batch or idle), got " + quote(v));
  }
  bool on_off(std::string_view v, unsigned col) {
    if (v != "on" && v != "off") fail(col, "expected on or off, got " + quote(v));
    return v == "on";
  }
  std::string name(const Token& t, std::string_view what) {
    if (!std::all_of(t.text.begin(), t.text.end(), is_name_char))
      fail(t.col, "bad " + std::string(what) + " name " + quote(t.text) + " (letters, digits, '_', '.', '-')");
    return std::string(t.text);
  }
  std::string group_path(std::string_view text, unsigned col, bool allow_root) {
    return group_path_at(here(col), text, allow_root);
  }
  // "3", "0-3", "0,2,4-7", "all" (= the empty mask).
  CpuMask cpu_list(std::string_view text, unsigned col) {
    if (text == "all") return {};
    unsigned max_cpu = 0, max_col = col;
    const CpuMask m = cpu_list_at(here(col), text, &max_cpu, &max_col);
    cpu_uses_.push_back({here(max_col), max_cpu});
    return m;
  }

  // ---- statements --------------------------------------------------------

  void once(std::optional<unsigned>& seen) {
    if (seen) fail(toks_[0].col, "duplicate " + quote(toks_[0].text) + " statement (first at line " +
                                     std::to_string(*seen) + ")");
    seen = line_;
  }

  void st_kernel() {
    once(seen_kernel_);
    expect_args(1, 1, "kernel <profile>");
    if (!profile_by_name(toks_[1].text)) {
      const std::string known = names_of(all_profiles(), [](const Profile& p) { return p.name; });
      fail(toks_[1].col, "unknown kernel profile " + quote(toks_[1].text) + " (known: " + known + ")");
    }
    s_.kernel = std::string(toks_[1].text);
  }

  void st_topology() {
    once(seen_topology_);
    s_.topology = topology_args(toks_, 1, line_);
  }

  void st_set() {
    expect_some(1, "set key=value ...");
    for (const KeyValue& kv : key_values(1)) {
      const SettingKey* k = setting_key(kv.key);
      if (!k) {
        const std::string known = names_of(kSettingKeys, [](const SettingKey& k) { return k.name; });
        fail(kv.key_col, "unknown setting " + quote(kv.key) + " (expected " + known + ")");
      }
      uint64_t v = 0;
      switch (k->kind) {
        case ValueKind::duration: v = duration(kv.value, kv.value_col, kv.key, k->lo, k->hi); break;
        case ValueKind::count: v = number(kv.value, kv.value_col, kv.key, k->lo, k->hi); break;
        case ValueKind::scaling: {
          const auto it = std::find(kScalingNames.begin(), kScalingNames.end(), kv.value);
          if (it == kScalingNames.end())
            fail(kv.value_col, "scaling must be none, log or linear, not " + quote(kv.value));
          v = static_cast<uint64_t>(it - kScalingNames.begin());
          break;
        }
      }
      s_.settings.push_back({std::string(kv.key), v});
    }
  }

  void st_feature() {
    expect_some(1, "feature name=on|off ...");
    for (const KeyValue& kv : key_values(1)) {
      const std::optional<Feature> f = feature_by_name(kv.key);
      if (!f) {
        const std::string known = names_of(all_features(), [](const FeatureInfo& i) { return i.name; });
        fail(kv.key_col, "unknown feature " + quote(kv.key) + " (known: " + known + ")");
      }
      s_.feature_overrides.emplace_back(*f, on_off(kv.value, kv.value_col));
    }
  }

  // `/path [shares=N | weight=W]` from toks_[first] on.
  GroupSpec group_spec(std::size_t first) {
    expect_some(first, "group /path shares=N or weight=W");
    if (toks_.size() > first + 2)
      fail(toks_[first + 2].col, "unexpected " + quote(toks_[first + 2].text) + "; expected one of shares=N, weight=W");
    GroupSpec g;
    g.path = group_path(toks_[first].text, toks_[first].col, false);
    if (toks_.size() == first + 2) {
      const KeyValue kv = key_value(toks_[first + 1]);
      if (kv.key == "shares") {
        g.shares = number(kv.value, kv.value_col, "shares", kFairMinShares, kFairMaxShares);
      } else if (kv.key == "weight") {
        g.weight = static_cast<uint32_t>(number(kv.value, kv.value_col, "weight", kMinCgroupWeight, kMaxCgroupWeight));
        g.shares = sched_weight_from_cgroup(*g.weight);
      } else {
        fail(kv.key_col, "unknown group key " + quote(kv.key) + " (expected shares or weight)");
      }
    }
    return g;
  }

  void st_group() {
    GroupSpec g = group_spec(1);
    const unsigned col = toks_[1].col;
    if (const auto it = groups_.find(g.path); it != groups_.end())
      fail(col, "group " + quote(g.path) + " already exists (line " + std::to_string(it->second.line) + ")");
    if (const std::string parent = parent_path(g.path); parent != "/" && !groups_.count(parent))
      fail(col, "parent group " + quote(parent) + " of " + quote(g.path) + " does not exist");
    groups_[g.path] = here(col);
    declare_group(col);
    s_.groups.push_back(std::move(g));
  }

  // One more task or group in the file (time 0 or timed): within the limits.
  void declare_task(unsigned col) {
    if (++nr_tasks_ > kMaxTasks) fail(col, "more than " + std::to_string(kMaxTasks) + " tasks in one scenario");
  }
  void declare_group(unsigned col) {
    if (group_decls_.size() == kMaxGroups)
      fail(col, "more than " + std::to_string(kMaxGroups) + " groups in one scenario");
    group_decls_.push_back(here(col));
  }

  // Task fields from toks_[first] on; at= only when at is given. With parent=
  // and no group=, the group is left empty: the parent's, when it forks.
  TaskSpec task_spec(const Token& name_tok, std::size_t first, std::optional<Nanos>* at, SourceLoc& group_loc,
                     SourceLoc& parent_loc, SourceLoc& at_loc) {
    TaskSpec t;
    t.name = name(name_tok, "task");
    declare_task(name_tok.col);
    group_loc = here(name_tok.col);
    // The task keys, in the order an error lists them; at= only with `at`.
    static constexpr std::array<std::string_view, 14> kKeys = {
        "group", "parent", "nice", "policy", "cpus", "run", "runtime", "sleep", "fork", "child", "children", "wakes",
        "sync", "at"};
    enum : std::size_t { kGroup, kParent, kNice, kPolicy, kCpus, kRun, kRuntime, kSleep, kFork, kChild, kChildren,
                         kWakes, kSync, kAt };
    static_assert(kAt + 1 == kKeys.size() && kKeys[kAt] == "at" && kKeys[kSync] == "sync", "kKeys in the enum's order");
    const std::size_t nkeys = kKeys.size() - !at;
    std::array<const KeyValue*, kKeys.size()> key{};
    const std::vector<KeyValue> kvs = key_values(first);
    for (const KeyValue& kv : kvs) {
      const std::size_t k = std::find(kKeys.begin(), kKeys.begin() + nkeys, kv.key) - kKeys.begin();
      if (k == nkeys) {
        const std::string known = names_of(std::span(kKeys.data(), nkeys), [](std::string_view k) { return k; });
        fail(kv.key_col, "unknown task key " + quote(kv.key) + " (expected " + known +
                             (at ? ")" : "; the time is the at time)"));
      }
      key[k] = &kv;
      switch (k) {  // the rest are read below, with the keys they go with
        case kGroup:
          t.group = group_path(kv.value, kv.value_col, true);
          group_loc = here(kv.value_col);
          break;
        case kParent:
          t.parent = name({kv.value, kv.value_col}, "parent task");
          if (t.parent == t.name) fail(kv.value_col, "task " + quote(t.name) + " cannot be its own parent");
          parent_loc = here(kv.value_col);
          break;
        case kNice: t.nice = nice_value(kv.value, kv.value_col); break;
        case kPolicy: t.policy = policy_value(kv.value, kv.value_col); break;
        case kCpus: t.cpus = cpu_list(kv.value, kv.value_col); break;
        case kAt:
          *at = duration(kv.value, kv.value_col, "at");
          at_loc = here(kv.value_col);
          break;
        default: break;
      }
    }
    if (key[kParent] && !key[kGroup]) t.group.clear();
    const KeyValue *run = key[kRun], *runtime = key[kRuntime], *sleep = key[kSleep];
    std::optional<Nanos> sleep_ns;
    if (sleep) sleep_ns = sleep->value == "wait" ? kSleepWait : duration(sleep->value, sleep->value_col, "sleep");
    if (run && runtime) fail(runtime->key_col, "a task has run= or runtime=, not both");
    if (run && run->value == "busy") {
      if (sleep) fail(sleep->key_col, "run=busy never sleeps; drop sleep= or give run=<duration>");
    } else if (run || runtime) {
      const KeyValue& burst = run ? *run : *runtime;
      const Nanos d = duration(burst.value, burst.value_col, burst.key, 1);
      if (sleep_ns == kSleepWait && d < kMinPeriod)  // woken as often as a waker likes: the burst bounds its events
        fail(burst.key_col, std::string(burst.key) + "=" + std::string(burst.value) +
                                " sleep=wait; a task that waits to be woken needs " + std::string(burst.key) +
                                " >= " + format_duration(kMinPeriod));
      if (sleep_ns && sleep_ns != kSleepWait && d + *sleep_ns < kMinPeriod)
        fail(burst.key_col, std::string(burst.key) + "=" + std::string(burst.value) + " sleep=" +
                                std::string(sleep->value) + " repeats every " + format_duration(d + *sleep_ns) +
                                "; a task that sleeps needs " + std::string(burst.key) + " + sleep >= " +
                                format_duration(kMinPeriod));
      if (run) t.behaviour = RunPeriodic{d, sleep_ns};
      else t.behaviour = RunWallclock{d, sleep_ns};
    } else if (sleep) {
      fail(sleep->key_col, "sleep= needs run=<duration> or runtime=<duration>");
    }
    churn(t, key[kFork], key[kChild], key[kChildren]);
    wakers(t, key[kWakes], key[kSync]);
    return t;
  }

  // wakes=NAME[,NAME...] [sync=on|off]: tasks of this file, not itself; a
  // task that ends its bursts (run= or runtime=).
  void wakers(TaskSpec& t, const KeyValue* wakes, const KeyValue* sync) {
    if (!wakes) {
      if (sync) fail(sync->key_col, "sync= needs wakes=NAME (the wakeups it makes sync)");
      return;
    }
    if (std::holds_alternative<RunBusy>(t.behaviour))
      fail(wakes->key_col, "wakes= needs run=<duration> or runtime=<duration>: a task wakes others as its bursts end");
    unsigned col = wakes->value_col;
    for (std::string_view rest = wakes->value;;) {
      const std::string_view one = rest.substr(0, rest.find(','));
      if (one.empty()) fail(col, "wakes= needs task names separated by ','");
      const std::string n = name({one, col}, "task");
      if (n == t.name) fail(col, "task " + quote(t.name) + " cannot wake itself");
      wakee_uses_.push_back({n, here(col)});
      t.wakes.push_back(n);
      if (one.size() == rest.size()) break;
      rest.remove_prefix(one.size() + 1);
      col += static_cast<unsigned>(one.size() + 1);
    }
    if (sync) t.wake_sync = on_off(sync->value, sync->value_col);
  }

  // fork=<interval> child=<cpu time> [children=N]: the fork/exit churn.
  void churn(TaskSpec& t, const KeyValue* fork, const KeyValue* child, const KeyValue* children) {
    if (!fork) {
      if (child || children) fail((child ? child : children)->key_col, "child= and children= need fork=<interval>");
      return;
    }
    if (!child) fail(fork->key_col, "fork= needs child=<cpu time> (what each child runs before it exits)");
    t.churn.every = duration(fork->value, fork->value_col, "fork", kMinPeriod);
    t.churn.child_run = duration(child->value, child->value_col, "child", 1);
    if (children) t.churn.children = number(children->value, children->value_col, "children", 1, UINT64_MAX);
  }

  void st_task() {
    expect_some(1, "task NAME key=value ...");
    std::optional<Nanos> at;
    SourceLoc group_loc, parent_loc, at_loc;
    TaskSpec t = task_spec(toks_[1], 2, &at, group_loc, parent_loc, at_loc);
    if (at) {
      if (pending_.size() == kMaxOps) fail(at_loc.col, "more than " + std::to_string(kMaxOps) + " timed ops");
      pending_.push_back(
          {{*at, op::Spawn{std::move(t)}, here(toks_[0].col)}, at_loc, here(toks_[1].col), group_loc, parent_loc, {}});
      return;
    }
    if (const auto it = tasks_.find(t.name); it != tasks_.end())
      fail(toks_[1].col, "duplicate task name " + quote(t.name) + " (first at line " + std::to_string(it->second.line) +
                             ")");
    if (!t.group.empty() && !groups_.count(t.group) && t.group != "/")
      fail_at(group_loc, "unknown group " + quote(t.group) + " (declare it with a group line before this task)");
    if (!t.parent.empty() && !tasks_.count(t.parent))
      fail_at(parent_loc, "unknown parent task " + quote(t.parent) + " (declare it with a task line before this one)");
    tasks_[t.name] = here(toks_[1].col);
    s_.tasks.push_back(std::move(t));
  }

  void st_at() {
    expect_some(1, "at <time> <op> ...");
    const Nanos when = duration(toks_[1].text, toks_[1].col, "time");
    if (pending_.size() == kMaxOps) fail(toks_[0].col, "more than " + std::to_string(kMaxOps) + " timed ops");
    expect_some(2, "an op after the time");
    PendingOp p{{when, op::Advance{}, here(toks_[0].col)}, here(toks_[1].col), {}, {}, {}, {}};
    std::string known;  // the rows' first words, for the error
    const bool found = op_table::any_row([&](const auto& row) {
      const std::string_view first = row.words.substr(0, row.words.find(' '));
      for (const Token& w : split(first, 0, '|')) {
        known += (known.empty() ? "" : ", ") + std::string(w.text);
        if (w.text == toks_[2].text) return at_op(row, p), true;
      }
      return false;
    });
    if (!found) fail(toks_[2].col, "unknown op " + quote(toks_[2].text) + " (expected " + known + ")");
    pending_.push_back(std::move(p));
  }

  // The op of a row (op_table.h) from toks_[2] on: its words, then one token per argument.
  template <class R> void at_op(const R& row, PendingOp& p) {
    typename R::type o{};
    if constexpr (R::custom) {
      custom_op(o, p);
    } else {
      const std::string usage = "at <time> " + op_table::usage(row);
      const std::vector<Token> words = tokenize(row.words);
      std::size_t i = 3;
      for (; i < 2 + words.size(); ++i) {
        expect_some(i, usage);
        if (toks_[i].text != words[i - 2].text)
          fail(toks_[i].col, "unknown " + std::string(words[i - 3].text) + " op " + quote(toks_[i].text) +
                                 " (expected " + std::string(words[i - 2].text) + ")");
      }
      op_table::for_each_arg(row, [&](const auto& a) {
        if (op_table::optional(a) && i >= toks_.size()) return;  // left out: off
        expect_some(i, usage);
        arg(o, a, toks_[i], words.back().text, p);
        ++i;
      });
      expect_args(3, i - 3, usage);
    }
    p.op.op = std::move(o);
  }
  // One argument of each kind (op_table.h), its token into the op; `word`
  // is the op's last word, naming it in errors.
  template <class O> void arg(O& o, const op_table::Task<O>& a, const Token& t, std::string_view, PendingOp& p) {
    p.task = here(t.col);
    o.*a.field = name(t, "task");
  }
  template <class O> void arg(O& o, const op_table::AnyGroup<O>& a, const Token& t, std::string_view, PendingOp& p) {
    p.group = here(t.col);
    o.*a.field = group_path(t.text, t.col, true);
  }
  template <class O> void arg(O& o, const op_table::LeafGroup<O>& a, const Token& t, std::string_view, PendingOp& p) {
    if (t.text == "/") fail(t.col, "the root group '/' cannot be destroyed");
    p.group = here(t.col);
    o.*a.field = group_path(t.text, t.col, false);
  }
  template <class O> void arg(O& o, const op_table::Group<O>& a, const Token& t, std::string_view word, PendingOp& p) {
    if (t.text == "/") fail(t.col, "no " + quote(word) + " op on the root group '/'");
    p.group = here(t.col);
    o.*a.field = group_path(t.text, t.col, false);
  }
  template <class O> void arg(O& o, const op_table::Nice<O>& a, const Token& t, std::string_view, PendingOp&) {
    o.*a.field = nice_value(t.text, t.col);
  }
  template <class O> void arg(O& o, const op_table::Cpus<O>& a, const Token& t, std::string_view, PendingOp&) {
    o.*a.field = cpu_list(t.text, t.col);
  }
  template <class O> void arg(O& o, const op_table::Cpu<O>& a, const Token& t, std::string_view, PendingOp&) {
    o.*a.field = static_cast<unsigned>(number(t.text, t.col, "CPU", 0, kMaxCpus - 1));
    cpu_uses_.push_back({here(t.col), o.*a.field});
  }
  template <class O> void arg(O& o, const op_table::Span<O>& a, const Token& t, std::string_view word, PendingOp& p) {
    o.*a.field = duration(t.text, t.col, word);
    p.value = here(t.col);
  }
  template <class O> void arg(O& o, const op_table::PolicyName<O>& a, const Token& t, std::string_view, PendingOp&) {
    o.*a.field = policy_value(t.text, t.col);
  }
  template <class O> void arg(O& o, const op_table::Word<O>& a, const Token& t, std::string_view word, PendingOp&) {
    if (t.text != a.off && t.text != a.on)
      fail(t.col, "unknown " + std::string(word) + " op " + quote(t.text) + " (expected " +
                      (a.off.empty() ? std::string(a.on) + " or nothing" : std::string(a.off) + " or " + std::string(a.on)) + ")");
    o.*a.field = t.text == a.on;
  }

  // The Custom rows: a task's or a group's fields, and shares or weight.
  void custom_op(op::Spawn& o, PendingOp& p) {
    expect_some(3, "at <time> spawn NAME key=value ...");
    SourceLoc at_loc;
    o.task = task_spec(toks_[3], 4, nullptr, p.group, p.parent, at_loc);
    p.task = here(toks_[3].col);
  }
  void custom_op(op::CreateGroup& o, PendingOp& p) {
    o.group = group_spec(3);
    p.group = here(toks_[3].col);
    declare_group(toks_[3].col);
  }
  void custom_op(op::SetShares& o, PendingOp& p) {
    const std::string_view kw = toks_[2].text;
    expect_args(3, 2, "at <time> " + std::string(kw) + " /path N");
    p.group = here(toks_[3].col);
    o.group = group_path(toks_[3].text, toks_[3].col, false);
    if (kw == "shares") {
      o.shares = number(toks_[4].text, toks_[4].col, "shares", kFairMinShares, kFairMaxShares);
    } else {
      o.weight = static_cast<uint32_t>(number(toks_[4].text, toks_[4].col, "weight", kMinCgroupWeight, kMaxCgroupWeight));
      o.shares = sched_weight_from_cgroup(*o.weight);
    }
  }

  void st_run() {
    once(seen_run_);
    expect_args(1, 1, "run <duration>");
    s_.duration = duration(toks_[1].text, toks_[1].col, "run duration", 1);
  }

  // ---- whole-file checks -------------------------------------------------

  void finish() {
    const Declared all_tasks = resolve_names(pending_, tasks_, groups_);
    for (const auto& [n, loc] : wakee_uses_)  // wakes= names: tasks of the file, at time 0 or spawned
      if (!all_tasks.count(n)) fail_at(loc, "task " + quote(n) + " (wakes=) is not in the file");
    // CPUs against the topology, in file order.
    const unsigned nr_cpus = s_.topology.nr_cpus();
    for (const CpuUse& u : cpu_uses_)
      if (u.max_cpu >= nr_cpus)
        fail_at(u.loc, "CPU " + std::to_string(u.max_cpu) + " is not in the topology (" +
                           (nr_cpus == 1 ? "CPU 0 only" : "CPUs 0-" + std::to_string(nr_cpus - 1)) +
                           (seen_topology_ ? ", topology at line " + std::to_string(*seen_topology_)
                                           : "; no topology line") +
                           ")");
    // Group entities (a cfs_rq and an entity per group and CPU), at the first group past the limit.
    if (group_decls_.size() * nr_cpus > kMaxGroupEntities) {
      const std::size_t k = kMaxGroupEntities / nr_cpus;
      fail_at(group_decls_[k], "group " + std::to_string(k + 1) + " on " + std::to_string(nr_cpus) + " CPUs makes " +
                                   std::to_string((k + 1) * nr_cpus) + " group entities; at most " +
                                   std::to_string(kMaxGroupEntities) + " (groups x CPUs)");
    }
    if (!seen_run_) {
      std::size_t last_nl = text_.rfind('\n');
      last_nl = last_nl == std::string_view::npos ? 0 : last_nl + 1;
      fail_at({line_, static_cast<unsigned>(text_.size() - last_nl + 1)},
              "missing 'run <duration>' statement (end of file)");
    }
    check_times(pending_, s_.duration, *seen_run_);
    for (PendingOp& p : pending_) s_.ops.push_back(std::move(p.op));
  }

  std::string_view text_, file_;
  unsigned line_ = 0;
  std::vector<Token> toks_;
  Scenario s_;
  std::optional<unsigned> seen_kernel_, seen_topology_, seen_run_;
  std::map<std::string, SourceLoc> groups_, tasks_;  // declared at time 0 (group and task lines)
  std::vector<PendingOp> pending_;
  std::vector<CpuUse> cpu_uses_;
  std::vector<std::pair<std::string, SourceLoc>> wakee_uses_;  // wakes= names, checked at the end
  std::size_t nr_tasks_ = 0;             // task lines and spawns
  std::vector<SourceLoc> group_decls_;  // group lines and group ops, in file order
};

}  // namespace

std::string ParseError::to_string() const {
  if (line == 0) return file + ": error: " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message;
}

ParseResult parse_scenario(std::string_view text, std::string_view filename) {
  try {
    return Parser(text, filename).parse();
  } catch (const std::exception& e) {  // std::bad_alloc: still an error, not an escape
    return ParseError{std::string(filename), 0, 0, std::string("cannot parse: ") + e.what()};
  }
}

std::variant<std::string, ParseError> read_scenario_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return ParseError{path, 0, 0, std::string("cannot open: ") + std::strerror(errno)};
  std::string text;
  char buf[65536];
  bool too_big = false;
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) {
    text.append(buf, n);
    if (text.size() > kMaxInputBytes) {
      too_big = true;
      break;
    }
  }
  const bool bad = std::ferror(f);
  const int err = errno;
  std::fclose(f);
  if (bad) return ParseError{path, 0, 0, std::string("cannot read: ") + std::strerror(err)};
  if (too_big) return ParseError{path, 0, 0, "file is larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB"};
  return text;
}

ParseResult load_scenario_file(const std::string& path) {
  auto text = read_scenario_file(path);
  if (auto* e = std::get_if<ParseError>(&text)) return std::move(*e);
  return parse_scenario(std::get<std::string>(text), path);
}

}  // namespace cfsv
