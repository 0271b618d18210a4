// Typed indices (model/ids.h): mixing up a task and a CPU, or a cfs_rq and an
// entity, does not compile. The static_asserts are the test: each `!` line
// is a call or an index that would compile with plain int32_t indices.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "model/core.h"
#include "model/fair.h"
#include "model/sched.h"

namespace cfsv {
namespace {

// The kernel functions take their ids in a fixed order.
template <class A, class B> concept EnqueueTakes = requires(Sched& s, A a, B b) { enqueue_task_fair(s, a, b, 0u); };
template <class A, class B> concept SliceTakes = requires(const Sched& s, A a, B b) { sched_slice(s, a, b); };
template <class A> concept MoveTakes = requires(Sched& s, A a) { sched_move_task(s, a); };
static_assert(EnqueueTakes<CpuId, TaskId>);
static_assert(!EnqueueTakes<TaskId, CpuId>);  // (cpu, task) swapped
static_assert(!EnqueueTakes<int32_t, int32_t>);
static_assert(SliceTakes<CfsRqId, EntityId>);
static_assert(!SliceTakes<EntityId, CfsRqId>);  // (cfs_rq, se) swapped
static_assert(MoveTakes<TaskId>);
static_assert(!MoveTakes<GroupId>);  // a group where the task belongs

// No conversions: between kinds, from or to integers.
static_assert(!std::is_convertible_v<TaskId, CpuId>);
static_assert(!std::is_convertible_v<EntityId, CfsRqId>);
static_assert(!std::is_convertible_v<int32_t, TaskId>);
static_assert(!std::is_convertible_v<TaskId, int32_t>);
template <class A, class B> concept Comparable = requires(A a, B b) { a == b; };
static_assert(Comparable<TaskId, TaskId>);
static_assert(!Comparable<TaskId, CpuId>);
static_assert(!Comparable<EntityId, int>);

// A table is indexed by its own kind of id only.
template <class V, class I> concept Indexes = requires(V v, I i) { v[i]; };
static_assert(Indexes<IdVec<CpuId, Rq>, CpuId>);
static_assert(!Indexes<IdVec<CpuId, Rq>, TaskId>);
static_assert(!Indexes<IdVec<CpuId, Rq>, std::size_t>);
static_assert(!Indexes<IdVec<CfsRqId, CfsRq, StableVec<CfsRq>>, EntityId>);
static_assert(!Indexes<IdVec<CpuId, CfsRqId>, GroupId>);  // tg->cfs_rq[cpu], not [group]

// rq->curr is a task, cfs_rq->curr an entity.
static_assert(std::is_same_v<decltype(Rq::curr), TaskId>);
static_assert(std::is_same_v<decltype(CfsRq::curr), EntityId>);

TEST(Ids, NoneIsFalseAndTablesHandOutTheirIds) {
  EXPECT_FALSE(TaskId{});
  EXPECT_FALSE(kIdle);
  EXPECT_FALSE(kStopper);
  EXPECT_NE(kIdle, kStopper);
  EXPECT_TRUE(TaskId(0));
  IdVec<TaskId, int> v;
  EXPECT_EQ(v.emplace_back(7), TaskId(0));
  EXPECT_EQ(v.emplace_back(8), TaskId(1));
  EXPECT_TRUE(v.contains(TaskId(1)));
  EXPECT_FALSE(v.contains(TaskId(2)));
  EXPECT_FALSE(v.contains(kIdle));
  std::vector<TaskId> ids;
  for (const TaskId t : v.ids()) ids.push_back(t);
  EXPECT_EQ(ids, (std::vector<TaskId>{TaskId(0), TaskId(1)}));
  EXPECT_EQ(v[TaskId(1)], 8);
}

}  // namespace
}  // namespace cfsv
