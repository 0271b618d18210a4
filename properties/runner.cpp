#include "properties/runner.h"

#include <chrono>
#include <string>
#include <unordered_map>

namespace cfsv::properties {

namespace {
class SilentListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// The counterexample of the last failing run: shrinking ends on a failing
// run, so after checkProperty it is the shrunk case's.
thread_local Counterexample tl_last_counterexample;

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}
}  // namespace

int max_success(Budget b) {
  switch (b) {
    case Budget::smoke: return 100;
    case Budget::ci: return 1000;
    case Budget::long_: return 100000;
  }
  return 100;
}

void refute(const std::string& summary, const std::string& reproducer) {
  tl_last_counterexample = {};
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, summary + "\n" + reproducer);
}

void refute(const Counterexample& c) {
  const std::string summary = c.summary, text = format_counterexample(c);
  tl_last_counterexample = c;
  throw rc::detail::CaseResult(rc::detail::CaseResult::Type::Failure, summary + "\n" + text);
}

EngineResult run_property(const rc::detail::Property& property, const CheckConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  tl_last_counterexample = {};
  rc::detail::TestParams params;
  params.seed = config.seed;
  params.maxSuccess = max_success(config.budget);
  params.maxSize = rc::kNominalSize;
  params.maxDiscardRatio = 10;
  SilentListener listener;
  // The 5-argument overload: the shorter ones read rapidcheck's global
  // configuration (RC_PARAMS, and a "Using configuration" line on stderr).
  const std::unordered_map<std::string, rc::detail::Reproduce> no_reproduce;
  const rc::detail::TestResult result = rc::detail::checkProperty(property, {}, params, listener, no_reproduce);

  EngineResult out;
  out.engine = Engine::properties;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    out.verdict = Verdict::passed;
    out.detail = std::to_string(success.numSuccess) + " cases";
  } else if (result.match(failure)) {
    out.verdict = Verdict::refuted;
    out.counterexample = tl_last_counterexample;
    const std::string& d = failure.description;
    const auto nl = d.find('\n');
    out.detail = one_line(d.substr(0, nl));
    if (out.detail.empty() || out.detail.back() == ':') out.detail = one_line(d);  // RC_ASSERT's "file:line:"
    out.reproducer = nl == std::string::npos ? std::string() : d.substr(nl + 1);
    if (!out.reproducer.empty() && out.reproducer.back() != '\n') out.reproducer += '\n';
    if (out.counterexample.empty())  // else it says more than RapidCheck's list of drawn values
      for (const auto& [type, value] : failure.counterExample) out.reproducer += "# " + type + ": " + value + "\n";
    out.reproducer += "# found by RapidCheck with seed " + std::to_string(config.seed) + " after " +
                      std::to_string(failure.numSuccess) + " passing cases, then shrunk\n";
  } else if (result.match(gave_up)) {
    out.detail = "gave up after " + std::to_string(gave_up.numSuccess) + " cases: " + one_line(gave_up.description);
  } else if (result.match(error)) {
    out.detail = "rapidcheck error: " + one_line(error.description);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace cfsv::properties
