#include "recorder.h"

namespace cfsv {

void TraceRecorder::sched_switch(const Sched& s, const SwitchEvent& e) {
  const Rq& r = s.rq[e.cpu];
  if (e.prev && e.t > r.since) trace_.stretches.push_back({e.prev, e.cpu, r.since, e.t});
  trace_.switches.push_back(e);
}

}  // namespace cfsv
