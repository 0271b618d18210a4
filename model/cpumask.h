// A CPU mask (struct cpumask) and its set bits as a range of CpuIds.
#pragma once
#include <bitset>
#include <cstddef>

#include "ids.h"

namespace cfsv {

constexpr unsigned kMaxCpus = 256;
using CpuMask = std::bitset<kMaxCpus>;  // empty = every CPU

// CPUs 0..n-1: the possible CPUs of an n-CPU machine.
inline CpuMask first_cpus(unsigned n) { return ~CpuMask{} >> (kMaxCpus - n); }
// cpumask_first: the lowest CPU of m; none when m is empty.
inline CpuId cpumask_first(const CpuMask& m) { return m.any() ? CpuId(static_cast<int>(m._Find_first())) : CpuId{}; }

// for_each_cpu (include/linux/cpumask.h): `for (CpuId c : each_cpu(mask))`,
// in CPU order, with break and return. A named mask is read as the loop goes
// (a bit set ahead of the loop is visited, one cleared is not); a temporary
// one is kept by value.
template <class M> class EachCpu {
 public:
  explicit EachCpu(M m) : m_(static_cast<M>(m)) {}
  struct iterator {
    const CpuMask* m;
    std::size_t c;
    CpuId operator*() const { return CpuId(c); }
    iterator& operator++() { return c = m->_Find_next(c), *this; }
    bool operator==(const iterator& o) const { return c == o.c; }
  };
  iterator begin() const { return {&mask(), mask()._Find_first()}; }
  iterator end() const { return {&mask(), kMaxCpus}; }

 private:
  const CpuMask& mask() const { return m_; }
  M m_;
};
inline EachCpu<const CpuMask&> each_cpu(const CpuMask& m) { return EachCpu<const CpuMask&>(m); }
inline EachCpu<CpuMask> each_cpu(CpuMask&& m) { return EachCpu<CpuMask>(m); }

}  // namespace cfsv
