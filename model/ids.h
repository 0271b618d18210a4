// Typed indices into the model's tables: a task, a sched_entity, a cfs_rq, a
// CPU, a task group. Each kind is its own type, so passing a CPU where a task
// is expected, or swapping (cfs_rq, se), does not compile; an IdVec is indexed
// only by its own kind of id (properties/ids_test.cpp shows both).
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace cfsv {

template <class Tag> struct Id {
  int32_t v = -1;  // -1: none (a negative id never indexes a table)

  constexpr Id() = default;
  template <std::integral I> constexpr explicit Id(I i) : v(static_cast<int32_t>(i)) {}
  // Like a kernel pointer: true when it names an object.
  constexpr explicit operator bool() const { return v >= 0; }
  constexpr std::size_t index() const { return static_cast<std::size_t>(v); }
  constexpr auto operator<=>(const Id&) const = default;
};

using TaskId = Id<struct TaskTag>;      // a task (task_struct)
using EntityId = Id<struct EntityTag>;  // a sched_entity, of a task or of a group
using CfsRqId = Id<struct CfsRqTag>;    // a cfs_rq
using CpuId = Id<struct CpuTag>;        // a CPU, and its rq
using GroupId = Id<struct GroupTag>;    // a task_group

// The ids 0..n-1 of one kind, for range-for.
template <class I> struct IdRange {
  std::size_t n;
  struct iterator {
    std::size_t i;
    I operator*() const { return I(i); }
    iterator& operator++() { return ++i, *this; }
    bool operator==(const iterator&) const = default;
  };
  iterator begin() const { return {0}; }
  iterator end() const { return {n}; }
};

// A std::vector-like table whose elements never move when it grows: each is
// allocated on its own. (std::deque's indexing costs a call and a division,
// several times a simple load under the fuzzing sanitizers; and there clang
// does not inline even this operator[] unless told to.) clear() keeps
// the elements' memory: the next ones are built in it (the old ones live on
// until then).
template <class T> class StableVec {
  using Slots = std::vector<std::unique_ptr<T>>;
  template <class S, class U> struct Iter {
    S slot;
    U& operator*() const { return **slot; }
    Iter& operator++() { return ++slot, *this; }
    bool operator==(const Iter&) const = default;
  };

 public:
  [[gnu::always_inline]] T& operator[](std::size_t i) { return *slots_[i]; }
  [[gnu::always_inline]] const T& operator[](std::size_t i) const { return *slots_[i]; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  template <class... A> void emplace_back(A&&... a) {
    if (size_ == slots_.size()) {
      slots_.push_back(std::make_unique<T>(static_cast<A&&>(a)...));
    } else if constexpr (std::is_nothrow_constructible_v<T, A&&...>) {
      std::destroy_at(slots_[size_].get());
      std::construct_at(slots_[size_].get(), static_cast<A&&>(a)...);
    } else {
      slots_[size_] = std::make_unique<T>(static_cast<A&&>(a)...);
    }
    ++size_;
  }
  void clear() { size_ = 0; }
  void reserve(std::size_t n) { slots_.reserve(n); }
  T& back() { return *slots_[size_ - 1]; }
  auto begin() { return Iter<typename Slots::iterator, T>{slots_.begin()}; }
  auto end() { return Iter<typename Slots::iterator, T>{slots_.begin() + static_cast<std::ptrdiff_t>(size_)}; }
  auto begin() const { return Iter<typename Slots::const_iterator, const T>{slots_.begin()}; }
  auto end() const {
    return Iter<typename Slots::const_iterator, const T>{slots_.begin() + static_cast<std::ptrdiff_t>(size_)};
  }

 private:
  Slots slots_;
  std::size_t size_ = 0;  // the first size_ slots hold the elements
};

// A table of T indexed by I only. C is std::vector, or StableVec where
// elements must not move when the table grows.
template <class I, class T, class C = std::vector<T>> class IdVec {
 public:
  [[gnu::always_inline]] T& operator[](I i) { return c_[i.index()]; }
  [[gnu::always_inline]] const T& operator[](I i) const { return c_[i.index()]; }
  std::size_t size() const { return c_.size(); }
  bool empty() const { return c_.empty(); }
  // Whether i names an element of this table.
  bool contains(I i) const { return i && i.index() < c_.size(); }
  // Appends and returns the new element's id.
  template <class... A> I emplace_back(A&&... a) {
    c_.emplace_back(static_cast<A&&>(a)...);
    return I(c_.size() - 1);
  }
  void reserve(std::size_t n) { c_.reserve(n); }
  void resize(std::size_t n) { c_.resize(n); }
  void resize(std::size_t n, const T& v) { c_.resize(n, v); }
  void assign(std::size_t n, const T& v) { c_.assign(n, v); }
  void clear() { c_.clear(); }  // keeps the storage
  T& back() { return c_.back(); }
  auto begin() { return c_.begin(); }
  auto end() { return c_.end(); }
  auto begin() const { return c_.begin(); }
  auto end() const { return c_.end(); }
  // The ids of every element, in order: for (CpuId c : rqs.ids()).
  IdRange<I> ids() const { return IdRange<I>{c_.size()}; }

 private:
  C c_;
};

}  // namespace cfsv
