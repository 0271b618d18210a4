// Nice-level weight tables (kernel/sched/core.c sched_prio_to_weight and
// sched_prio_to_wmult, v4.10+; the same values as prio_to_weight/_wmult before).
#pragma once
#include <array>
#include <cstdint>

namespace cfsv {

constexpr int kNiceMin = -20;
constexpr int kNiceMax = 19;
constexpr int kNiceLevels = 40;

// The weight table is hand-tuned in the kernel (~1.25x per nice level, with
// exceptions such as nice -17), so its literal values are its definition.
extern const std::array<uint32_t, kNiceLevels> sched_prio_to_weight;

// The kernel's inverse weights, literal. They are round(2^32 / weight) except
// at nice 13, 14, 16 and 17, where the kernel has the floor (one less);
// properties/golden_vectors_test.cpp pins exactly those four.
extern const std::array<uint32_t, kNiceLevels> sched_prio_to_wmult;
constexpr uint32_t rounded_inverse_weight(uint32_t weight) {
  return static_cast<uint32_t>(((uint64_t{1} << 32) + weight / 2) / weight);
}

inline uint32_t nice_to_weight(int nice) { return sched_prio_to_weight[nice - kNiceMin]; }
inline uint32_t nice_to_wmult(int nice) { return sched_prio_to_wmult[nice - kNiceMin]; }

// SCHED_IDLE weight (kernel/sched/sched.h WEIGHT_IDLEPRIO, WMULT_IDLEPRIO).
constexpr uint32_t kWeightIdlePrio = 3;
constexpr uint32_t kWmultIdlePrio = 1431655765;

}  // namespace cfsv
