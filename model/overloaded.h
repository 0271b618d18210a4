// Overloaded{lambdas...}: one visitor from several lambdas, for std::visit.
// Dispatches on Op and Behaviour list every alternative and no catch-all, so
// a new alternative that a visitor forgets does not compile.
#pragma once

namespace cfsv {

template <class... F> struct Overloaded : F... {
  using F::operator()...;
};
template <class... F> Overloaded(F...) -> Overloaded<F...>;

}  // namespace cfsv
