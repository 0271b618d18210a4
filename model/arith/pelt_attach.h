// Attaching and detaching an entity's PELT averages to and from a cfs_rq
// (kernel/sched/fair.c v5.15.100, and v6.4 where `relaxed`: v5.17's relaxed
// sum syncs, feature pelt_relaxed_sum_sync): the arithmetic of a migration's
// and a group move's detach and attach, as templates over the value type
// (uint64_t in model/pelt.cpp, the symbolic bit-vector in proofs/sim_proofs.cpp).
// Only the averages: the leaf list, the propagation flags and the model's
// attachment bookkeeping stay in model/pelt.cpp.
#pragma once
#include "pelt.h"
#include "pelt_tables.h"

namespace cfsv::pelt_v5_15 {

// sub_positive (kernel/sched/fair.c v5.15): v - d, clamped at 0.
template <class V> V sub_positive(V v, V d) { return select(d > v, V(0), v - d); }

// enqueue_load_avg (kernel/sched/fair.c v5.15): the entity's load joins the
// cfs_rq's; se_weight is scale_load_down(se->load.weight).
template <class V> void enqueue_load_avg(SchedAvg<V>& cfs, const SchedAvg<V>& se, V se_weight) {
  cfs.load_avg = cfs.load_avg + se.load_avg;
  cfs.load_sum = cfs.load_sum + se_weight * se.load_sum;
}

// PELT_MIN_DIVIDER (kernel/sched/pelt.h v5.15.100, v6.4): LOAD_AVG_MAX - 1024.
template <class V> V pelt_min_divider() { return V(pelt_tables().load_avg_max - kPeltPeriodUs); }

// The floor of the relaxed sum syncs (kernel/sched/fair.c v6.4):
// max_t(u32, sum, avg * PELT_MIN_DIVIDER). max_t casts both sides to u32, so
// a u64 load_sum or runnable_sum of 2^32 or more keeps only its low 32 bits.
template <class V> V floor_sum_u32(V sum, V avg) {
  const V s = u32(sum), f = u32(avg * pelt_min_divider<V>());
  return select(s > f, s, f);
}

// A cfs_rq's sum after an entity's part `taken` leaves it, its average
// already lowered to `avg`: rebuilt as avg * divider (v5.15.100) or, relaxed
// (v6.4), `taken` subtracted (sub_positive) and floored.
template <class V> V sum_after_leave(V sum, V taken, V avg, V divider, bool relaxed) {
  return relaxed ? floor_sum_u32(sub_positive(sum, taken), avg) : avg * divider;
}

// dequeue_load_avg (kernel/sched/fair.c v5.15.100): the entity's load leaves;
// load_sum is rebuilt from load_avg with the entity's divider. Relaxed
// (v6.4): the entity's weighted load_sum is taken away, then floored.
template <class V> void dequeue_load_avg(SchedAvg<V>& cfs, const SchedAvg<V>& se, V se_weight, bool relaxed) {
  cfs.load_avg = sub_positive(cfs.load_avg, se.load_avg);
  cfs.load_sum = sum_after_leave(cfs.load_sum, se_weight * se.load_sum, cfs.load_avg, get_pelt_divider(se), relaxed);
}

// attach_entity_load_avg (kernel/sched/fair.c v5.15.100): the entity's window
// is aligned with the cfs_rq's, its sums rebuilt from its averages with the
// cfs_rq's divider (load_sum per unit of weight, at least 1), and its
// averages and sums join the cfs_rq's. Returns the runnable_sum
// add_tg_cfs_propagate is given (the entity's new load_sum).
template <class V> V attach_entity_load_avg(SchedAvg<V>& cfs, SchedAvg<V>& se, V se_weight) {
  const V divider = get_pelt_divider(cfs);
  se.last_update_time = cfs.last_update_time;
  se.period_contrib = cfs.period_contrib;
  se.util_sum = u32(se.util_avg * divider);
  se.runnable_sum = se.runnable_avg * divider;
  const V load_sum = se.load_avg * divider;
  se.load_sum = select_lazy(
      se_weight < load_sum, [&] { return load_sum / se_weight; }, [&] { return V(1); });
  enqueue_load_avg(cfs, se, se_weight);
  cfs.util_avg = cfs.util_avg + se.util_avg;
  cfs.util_sum = u32(cfs.util_sum + se.util_sum);
  cfs.runnable_avg = cfs.runnable_avg + se.runnable_avg;
  cfs.runnable_sum = cfs.runnable_sum + se.runnable_sum;
  return se.load_sum;
}

// detach_entity_load_avg (kernel/sched/fair.c v5.15.100): the entity's
// averages leave the cfs_rq's (clamped at 0), whose sums are rebuilt from its
// averages with its divider. Relaxed (v6.4): the entity's sums are taken
// away, then floored. Returns the load_sum add_tg_cfs_propagate takes away
// (the caller negates it).
template <class V> V detach_entity_load_avg(SchedAvg<V>& cfs, const SchedAvg<V>& se, V se_weight, bool relaxed) {
  const V divider = get_pelt_divider(cfs);
  dequeue_load_avg(cfs, se, se_weight, relaxed);
  cfs.util_avg = sub_positive(cfs.util_avg, se.util_avg);
  cfs.runnable_avg = sub_positive(cfs.runnable_avg, se.runnable_avg);
  cfs.util_sum = u32(sum_after_leave(cfs.util_sum, se.util_sum, cfs.util_avg, divider, relaxed));
  cfs.runnable_sum = sum_after_leave(cfs.runnable_sum, se.runnable_sum, cfs.runnable_avg, divider, relaxed);
  return se.load_sum;
}

// reweight_entity's PELT part (kernel/sched/fair.c v5.15.100): the entity's
// load_avg recomputed from its load_sum at its new weight (se_weight).
template <class V> void reweight_load_avg(SchedAvg<V>& se, V se_weight) {
  se.load_avg = se_weight * se.load_sum / get_pelt_divider(se);
}

}  // namespace cfsv::pelt_v5_15
