// The op table: for each kind of Op, in Op's order, its words after `at
// <time>` in a scenario file, its arguments and how often the generators pick
// it. The parser, the printer, the timeline checks, OpScope, the fuzz decoder
// and the RapidCheck generators each read an op's form from its row, one
// function per kind of argument; so a new op is a struct in scenario.h, a row
// here, and its effect in Sim (model/sim_ops.cpp).
//
// Three rows say Custom: spawn and group take a task's or a group's key=value
// fields (as the `task` and `group` lines do), and `shares /g N` / `weight /g
// W` are two spellings of one op. Each reader writes those three out.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "scenario.h"

namespace cfsv::op_table {

// The kinds of argument, each bound to the field of its op that it fills,
// one token each.
enum class Arg { task, any_group, leaf_group, group, nice, cpus, cpu, span, word, policy };
// A task that exists at the op's time.
template <class O> struct Task { static constexpr Arg kind = Arg::task; std::string O::*field; };
// A group that exists at the op's time, '/' too.
template <class O> struct AnyGroup { static constexpr Arg kind = Arg::any_group; std::string O::*field; };
// A group with no child group, not '/'; the op removes it.
template <class O> struct LeafGroup { static constexpr Arg kind = Arg::leaf_group; std::string O::*field; };
// A group that exists at the op's time, not '/' (a cgroup file the root refuses).
template <class O> struct Group { static constexpr Arg kind = Arg::group; std::string O::*field; };
// A nice value, -20..19.
template <class O> struct Nice { static constexpr Arg kind = Arg::nice; int O::*field; };
// A cpulist within the topology, or `all`.
template <class O> struct Cpus { static constexpr Arg kind = Arg::cpus; CpuMask O::*field; };
// A CPU of the topology.
template <class O> struct Cpu { static constexpr Arg kind = Arg::cpu; unsigned O::*field; };
// A duration.
template <class O> struct Span { static constexpr Arg kind = Arg::span; Nanos O::*field; };
// One of two words: `off` false, `on` true. An empty `off` makes the word
// optional (absent: false); such a word comes last.
template <class O> struct Word {
  static constexpr Arg kind = Arg::word;
  bool O::*field;
  std::string_view off, on;
};
// A fair policy: normal, batch or idle (scenario.h kPolicyNames).
template <class O> struct PolicyName { static constexpr Arg kind = Arg::policy; Policy O::*field; };
struct Custom {};  // the op's form is its own (see above)

template <class O> Task(std::string O::*) -> Task<O>;
template <class O> AnyGroup(std::string O::*) -> AnyGroup<O>;
template <class O> LeafGroup(std::string O::*) -> LeafGroup<O>;
template <class O> Group(std::string O::*) -> Group<O>;
template <class O> Nice(int O::*) -> Nice<O>;
template <class O> Cpus(CpuMask O::*) -> Cpus<O>;
template <class O> Cpu(unsigned O::*) -> Cpu<O>;
template <class O> Span(Nanos O::*) -> Span<O>;
template <class O> Word(bool O::*, std::string_view, std::string_view) -> Word<O>;
template <class O> PolicyName(Policy O::*) -> PolicyName<O>;

template <class O, class... A> struct Row {
  using type = O;
  static constexpr bool custom = (std::is_same_v<A, Custom> || ...);
  std::string_view words;  // "exit", "cgroup destroy"; a Custom row's first word may be "a|b"
  unsigned weight;         // relative frequency in the generators (model/ops_decoder.h, properties/sim_gen.h)
  std::tuple<A...> args;   // in the order they are written
};
template <class O, class... A> constexpr Row<O, A...> row(std::string_view words, unsigned weight, A... args) {
  return {words, weight, {args...}};
}

inline constexpr auto kRows = std::tuple{
    row<op::Spawn>("spawn", 2, Custom{}),
    row<op::Exit>("exit", 1, Task{&op::Exit::task}),
    row<op::Sleep>("sleep", 1, Task{&op::Sleep::task}),
    row<op::Wake>("wake", 2, Task{&op::Wake::task}),
    row<op::SetNice>("nice", 1, Task{&op::SetNice::task}, Nice{&op::SetNice::nice}),
    row<op::SetAffinity>("affinity", 1, Task{&op::SetAffinity::task}, Cpus{&op::SetAffinity::cpus}),
    row<op::CreateGroup>("group", 1, Custom{}),
    row<op::SetShares>("shares|weight", 1, Custom{}),
    row<op::MoveTask>("move", 2, Task{&op::MoveTask::task}, AnyGroup{&op::MoveTask::group}),
    row<op::Advance>("advance", 4, Span{&op::Advance::by}),
    row<op::DestroyGroup>("cgroup destroy", 1, LeafGroup{&op::DestroyGroup::group}),
    row<op::Setsid>("setsid", 1, Task{&op::Setsid::task}),
    row<op::AutogroupNice>("autogroup nice", 1, Task{&op::AutogroupNice::task}, Nice{&op::AutogroupNice::nice}),
    row<op::SetCpuOnline>("cpu", 1, Word{&op::SetCpuOnline::online, "offline", "online"},
                          Cpu{&op::SetCpuOnline::cpu}),
    row<op::Yield>("yield", 1, Task{&op::Yield::task}),
    row<op::Ttwu>("ttwu", 1, Task{&op::Ttwu::task}, Cpu{&op::Ttwu::cpu}, Word{&op::Ttwu::sync, "", "sync"}),
    row<op::SetPolicy>("policy", 1, Task{&op::SetPolicy::task}, PolicyName{&op::SetPolicy::policy}),
    row<op::SetGroupIdle>("idle", 1, Group{&op::SetGroupIdle::group}, Word{&op::SetGroupIdle::idle, "0", "1"}),
};

inline constexpr std::size_t kKinds = std::tuple_size_v<std::remove_const_t<decltype(kRows)>>;
static_assert(kKinds == std::variant_size_v<Op>, "op_table::kRows: one row per kind of Op");
static_assert([]<std::size_t... I>(std::index_sequence<I...>) {
  return (std::is_same_v<typename std::tuple_element_t<I, std::remove_const_t<decltype(kRows)>>::type,
                         std::variant_alternative_t<I, Op>> && ...);
}(std::make_index_sequence<kKinds>{}), "op_table::kRows: the rows in Op's order");

// The row of kind O.
template <class O, class V = Op> inline constexpr std::size_t kIndex = 0;
template <class O, class... K> inline constexpr std::size_t kIndex<O, std::variant<K...>> = [] {
  constexpr bool same[] = {std::is_same_v<O, K>...};
  std::size_t i = 0;
  while (i < sizeof...(K) && !same[i]) ++i;
  return i;
}();
template <class O> constexpr const auto& row_of() { return std::get<kIndex<O>>(kRows); }
// f(row) for every row, in order, until f returns true; whether one did.
template <class F> constexpr bool any_row(F&& f) {
  return std::apply([&](const auto&... r) { return (f(r) || ...); }, kRows);
}
// f(arg) for every argument of a row, in order.
template <class R, class F> constexpr void for_each_arg(const R& r, F&& f) {
  std::apply([&](const auto&... a) { (f(a), ...); }, r.args);
}
// f(row, o) with the row of op's kind and op as that kind (const or not).
template <class F, class V> decltype(auto) visit(F&& f, V&& op) {
  return std::visit([&](auto& o) -> decltype(auto) { return f(row_of<std::decay_t<decltype(o)>>(), o); },
                    std::forward<V>(op));
}

// Whether an argument may be left out (an optional word).
template <class A> constexpr bool optional(const A& a) {
  if constexpr (A::kind == Arg::word) return a.off.empty();
  else return false;
}

// An argument's placeholder in an op's form: "[sync]" for an optional word.
template <class A> std::string placeholder(const A& a) {
  if constexpr (A::kind == Arg::word) {
    return optional(a) ? "[" + std::string(a.on) + "]" : std::string(a.off) + "|" + std::string(a.on);
  } else if constexpr (A::kind == Arg::policy) {
    return "normal|batch|idle";
  } else {
    // Arg's order
    constexpr std::string_view kNames[] = {"TASK", "/path", "/path", "/path", "N", "CPULIST", "N", "<duration>"};
    return std::string(kNames[static_cast<int>(A::kind)]);
  }
}
// A row's form after `at <time>`: "nice TASK N", "cpu offline|online N" (not for Custom rows).
template <class R> std::string usage(const R& row) {
  std::string s(row.words);
  for_each_arg(row, [&](const auto& a) { s += " " + placeholder(a); });
  return s;
}

// The generators' weights, in Op's order.
inline constexpr auto kWeights = std::apply([](const auto&... r) { return std::array<unsigned, kKinds>{r.weight...}; },
                                            kRows);

// The task an op names by a Task argument ("" when none: spawn, group ops, advance, cpu).
inline const std::string& task_of(const Op& op) {
  static const std::string none;
  return visit(
      [](const auto& row, const auto& o) -> const std::string& {
        const std::string* t = &none;
        if constexpr (!std::decay_t<decltype(row)>::custom)
          for_each_arg(row, [&](const auto& a) {
            if constexpr (std::decay_t<decltype(a)>::kind == Arg::task)
              if (t == &none) t = &(o.*a.field);
          });
        return *t;
      },
      op);
}

}  // namespace cfsv::op_table
