// Load balancing and the kernel's placement on decoded op sequences: as
// fuzz_ops (fuzz/ops_target.h's checks), with features load_balance and
// kernel_placement on, 2 to 8 CPUs in SMT/MC/DIE domains (1..2 sockets x
// 1..2 cores x 1..2 threads; one machine in four with little CPUs of
// capacity 446, for misfit balancing) and a newidle_cost of 200 ns, 2 us or 20 us
// (model/ops_decoder.h, DecodeOptions::balancing). Migrations, newidle walks,
// active balance and nohz idle balance run between the ops; the invariants
// include a task never queued outside its affinity and every rq's cfs_tasks
// list.
#include "fuzz/ops_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  return cfsv::fuzz::ops_target_input("fuzz_balance_ops", cfsv::fuzz::kBalanceOpsOptions, {data, size},
                                      [](const cfsv::Sim&, const cfsv::Op&) {});
}
