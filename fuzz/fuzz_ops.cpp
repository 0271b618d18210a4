// The CFS model on decoded op sequences: bytes become a scenario on 1..4 CPUs
// (model/ops_decoder.h: random profile, features, groups nested up to depth
// 3, tasks, some forking churn children, then up to 64 timed ops within
// 10 ms), each op applied as it is
// decoded on one Sim reset for each input, with the checks of
// fuzz/ops_target.h. Its libFuzzer flags: fuzz_ops.options.
#include <variant>
#include <vector>

#include "fuzz/ops_target.h"

namespace {
constexpr const char* kTarget = "fuzz_ops";

#ifdef CFSV_FUZZ_PLANTED
// Test builds only (fuzz/CMakeLists.txt builds this file so into
// fuzz/planted/ for the end-to-end test of `cfsv fuzz`): a heap-buffer-overflow
// once a task in a group nested two deep is reniced to 19 while it runs, a
// state the fuzzer has to find. The model itself is untouched.
void planted_bug(const cfsv::Sim& sim, const cfsv::Op& op) {
  using namespace cfsv;
  const auto* n = std::get_if<op::SetNice>(&op);
  if (!n || n->nice != 19) return;
  const TaskId t = sim.task_index(n->task);
  if (!t || sim.tasks()[t].state != TaskState::running || sim.groups()[sim.tasks()[t].group].depth < 3) return;
  const std::vector<char> one(1);
  volatile char past_the_end = one.data()[1];
  (void)past_the_end;
}
#else
void planted_bug(const cfsv::Sim&, const cfsv::Op&) {}
#endif
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return cfsv::fuzz::ops_target_input(kTarget, cfsv::fuzz::kOpsOptions, {data, size}, planted_bug);
}
