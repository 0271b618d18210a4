#include "pelt_tables.h"

#include <cmath>

namespace cfsv {

// The generator's steps, in its own double arithmetic and int truncations.
PeltTables compute_pelt_tables() {
  PeltTables t{};
  const double y = std::pow(0.5, 1 / double(kLoadAvgPeriod));

  for (uint64_t i = 0; i < kLoadAvgPeriod; ++i)
    t.yN_inv[i] = static_cast<uint32_t>(double((uint64_t{1} << 32) - 1) * std::pow(y, double(i)));

  int sum = 1024;
  t.yN_sum[0] = 0;
  for (uint64_t i = 1; i <= kLoadAvgPeriod; ++i) {
    sum = i == 1 ? static_cast<int>(sum * y) : static_cast<int>(sum * y + 1024 * y);
    t.yN_sum[i] = static_cast<uint32_t>(sum);
  }

  // calc_converged_max: n counts the steps before the fixed point, less one.
  const uint64_t y_inv = static_cast<uint64_t>(double((uint64_t{1} << 32) - 1) * y);
  uint64_t max = 1024, last = 0;
  int64_t n = -1;
  for (;; ++n) {
    if (n > -1) max = ((max * y_inv) >> 32) + 1024;
    if (last == max) break;
    last = max;
  }
  t.load_avg_max = max;
  t.load_avg_max_n = static_cast<uint64_t>(n - 1);

  uint32_t x = t.yN_sum[kLoadAvgPeriod];
  t.accumulated_sum_N32[0] = 0;
  for (uint64_t k = 1; k < t.accumulated_sum_N32.size(); ++k) {
    if (k > 1) x = x / 2 + t.yN_sum[kLoadAvgPeriod];
    t.accumulated_sum_N32[k] = x;
  }
  return t;
}

}  // namespace cfsv
