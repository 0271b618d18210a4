// The op decoder (model/ops_decoder.h) and the lists it derives from: every
// profile, every feature the generators vary and every kind of op come out
// of it, with no list of them written here or in the decoder.
#include <gtest/gtest.h>

#include <set>

#include "model/deterministic_random.h"
#include "model/ops_decoder.h"

namespace cfsv {
namespace {

struct Reader : DeterministicRandom {
  using DeterministicRandom::DeterministicRandom;
  uint64_t left = 300;  // values until exhausted
  bool exhausted() { return left-- == 0; }
};

TEST(OpsDecoder, CoversEveryProfileVariedFeatureAndOpKind) {
  std::set<std::string> kernels;
  std::set<std::pair<Feature, bool>> overrides;
  std::set<std::size_t> kinds;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Reader r(seed);
    const Scenario s = decode_ops_scenario(r);
    kernels.insert(s.kernel);
    overrides.insert(s.feature_overrides.begin(), s.feature_overrides.end());
    OpScope scope = OpScope::of(s);
    for (const TimedOp& o : s.ops) {
      EXPECT_TRUE(scope.can_apply(o.op)) << "seed " << seed << ": " << print_scenario(s);
      scope.note(o.op);
      kinds.insert(o.op.index());
    }
  }
  for (const Profile& p : all_profiles()) EXPECT_TRUE(kernels.count(std::string(p.name))) << p.name;
  EXPECT_EQ(kernels.size(), all_profiles().size());
  for (const FeatureInfo& f : all_features())
    for (const bool on : {false, true})
      EXPECT_EQ(overrides.count({f.feature, on}), f.generators_vary ? 1u : 0u) << f.name << "=" << on;
  // Every kind the op table gives a weight (ttwu has none yet: model/op_table.h).
  for (std::size_t k = 0; k < std::variant_size_v<Op>; ++k)
    EXPECT_EQ(kinds.count(k), op_table::kWeights[k] ? 1u : 0u) << "op kind " << k;
}

// An exhausted input (every value its lowest, as fuzz::ByteReader's) decodes
// to the plainest scenario: the default profile.
TEST(OpsDecoder, DefaultProfileIsNamedNotIndexed) {
  struct Exhausted {
    uint64_t range(uint64_t lo, uint64_t) { return lo; }
    bool exhausted() { return true; }
  } r;
  EXPECT_EQ(decode_ops_scenario(r).kernel, kDefaultProfile);
  EXPECT_EQ(default_profile().name, kDefaultProfile);
  EXPECT_EQ(profiles_default_first().front(), &default_profile());
  EXPECT_EQ(profiles_default_first().size(), all_profiles().size());
  EXPECT_EQ(Scenario{}.kernel, kDefaultProfile);
}

// default_op(k) is Op's k-th kind, in the order kOpWeight weighs them.
TEST(OpsDecoder, DefaultOpOfEachKind) {
  for (std::size_t k = 0; k < std::variant_size_v<Op>; ++k) EXPECT_EQ(default_op(k).index(), k);
}

}  // namespace
}  // namespace cfsv
