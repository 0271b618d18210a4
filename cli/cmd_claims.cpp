// cfsv claims: the claim registry, as a table or JSON.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/table.h"
#include "model/claims.h"

namespace cfsv::cli {

int cmd_claims(int argc, char** argv) {
  bool json = false;
  ArgParser p("claims", "Lists the claims `cfsv verify` checks: what each is about, the features it is\n"
                        "checked under, the relation, the expected verdict and the statement.");
  p.flag("json", &json, "print JSON on stdout instead of the table");
  if (auto rc = p.parse(argc, argv)) return *rc;

  if (json) {
    JsonWriter j(std::cout);
    j.begin_object().key("claims").begin_array();
    for (const Claim& c : all_claims()) {
      j.begin_object().field("id", c.id).field("about", c.about).key("features").begin_array();
      for (const FeatureInfo& f : all_features())
        if (c.features[f.feature]) j.value(f.name);
      j.end_array().field("relation", c.relation).field("expect", to_string(c.expect));
      j.field("statement", c.statement).end_object();
    }
    j.end_array().end_object();
    std::cout << '\n';
    return 0;
  }
  Table t({"id", "about", "features", "relation", "expect", "statement"});
  for (const Claim& c : all_claims()) {
    const std::string features = c.features.to_string();
    t.row({std::string(c.id), std::string(c.about), features.empty() ? "(none)" : features,
           std::string(c.relation), std::string(to_string(c.expect)), std::string(c.statement)});
  }
  t.print(std::cout);
  return 0;
}

}  // namespace cfsv::cli
