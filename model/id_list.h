// The kernel's list_head operations on an intrusive doubly linked list of
// ids: each element's prev/next links are its own fields (link(id) names
// them), the list's ends are head and tail, and every operation is O(1).
// rq->cfs_tasks (model/cfs_tasks.h) and v3.10's leaf_cfs_rq_list
// (model/pelt_v3.cpp) are such lists.
#pragma once

namespace cfsv {

template <class Id> struct IdLinks {
  Id& prev;
  Id& next;
};

// list_add: x at the head.
template <class Id, class Link> void id_list_add(Id& head, Id& tail, Id x, Link link) {
  const IdLinks<Id> n = link(x);
  n.prev = Id{}, n.next = head;
  (head ? link(head).prev : tail) = x;
  head = x;
}
// list_add_tail: x at the tail.
template <class Id, class Link> void id_list_add_tail(Id& head, Id& tail, Id x, Link link) {
  const IdLinks<Id> n = link(x);
  n.next = Id{}, n.prev = tail;
  (tail ? link(tail).next : head) = x;
  tail = x;
}
// list_del_init: x off the list, its links cleared.
template <class Id, class Link> void id_list_del(Id& head, Id& tail, Id x, Link link) {
  const IdLinks<Id> n = link(x);
  (n.prev ? link(n.prev).next : head) = n.next;
  (n.next ? link(n.next).prev : tail) = n.prev;
  n.prev = n.next = Id{};
}

}  // namespace cfsv
