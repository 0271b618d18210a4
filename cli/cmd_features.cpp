// cfsv features: the named features and which profile turns each on.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/table.h"
#include "model/features.h"

namespace cfsv::cli {

int cmd_features(int argc, char** argv) {
  bool json = false;
  ArgParser p("features", "Lists the named features (kernel sched_feats, era behaviours, seed patches), which\n"
                          "profile (`kernel` line) turns each on, and what it does. A scenario's `feature`\n"
                          "lines and `cfsv run --feature NAME=on|off` override a profile.");
  p.flag("json", &json, "print JSON on stdout instead of the table");
  if (auto rc = p.parse(argc, argv)) return *rc;

  const std::span<const Profile> profiles = all_profiles();
  if (json) {
    JsonWriter j(std::cout);
    j.begin_object().key("features").begin_array();
    for (const FeatureInfo& f : all_features()) {
      j.begin_object().field("name", f.name).field("what", f.what).key("on_in").begin_array();
      for (const Profile& pr : profiles)
        if (pr.features[f.feature]) j.value(pr.name);
      j.end_array().end_object();
    }
    j.end_array().end_object();
    std::cout << '\n';
    return 0;
  }
  std::vector<std::string> header = {"feature"};
  for (const Profile& pr : profiles) header.emplace_back(pr.name);
  header.emplace_back("what");
  Table t(header);
  for (const FeatureInfo& f : all_features()) {
    std::vector<std::string> row = {std::string(f.name)};
    for (const Profile& pr : profiles) row.emplace_back(pr.features[f.feature] ? "on" : "-");
    row.emplace_back(f.what);
    t.row(row);
  }
  t.print(std::cout);
  return 0;
}

}  // namespace cfsv::cli
