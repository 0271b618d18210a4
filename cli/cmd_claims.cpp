// cfsv claims [CLAIM...]: the claim records (claims/registry.cpp), as a table or JSON.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/table.h"
#include "claims/claim.h"

namespace cfsv::cli {

namespace {
std::string eras_of(const Claim& c) {
  std::string s;
  for (std::string_view e : era_names(c)) s += (s.empty() ? "" : " ") + std::string(e);
  return s;
}

void json_claim(JsonWriter& j, const Claim& c) {
  const Domain& d = c.domain;
  j.begin_object().field("id", c.id).field("about", c.about).field("kind", to_string(c.kind));
  j.field("relation", relation(c.kind)).key("features").begin_array();
  for (const FeatureInfo& f : all_features())
    if (c.features[f.feature]) j.value(f.name);
  j.end_array().key("domain").begin_object();
  j.field("min_depth", d.min_depth).field("max_depth", d.max_depth).key("max_tasks").begin_object();
  j.field("smoke", d.max_tasks.smoke).field("ci", d.max_tasks.ci).field("long", d.max_tasks.long_).end_object();
  j.field("weights", to_string(d.weights)).field("min_cpus", d.min_cpus).field("max_cpus", d.max_cpus);
  j.field("idle", d.idle).field("min_granularity", d.min_granularity);
  j.key("eras").begin_array();
  for (std::string_view e : era_names(c)) j.value(e);
  j.end_array().end_object();
  j.field("prefer", to_string(c.prefer)).field("expect", to_string(c.expect)).field("statement", c.statement);
  j.field("domain_text", describe(c, Budget::ci)).end_object();
}
}  // namespace

int cmd_claims(int argc, char** argv) {
  bool json = false;
  std::vector<std::string> ids;
  ArgParser p("claims", "Lists the claims `cfsv verify` checks: what each is about, its kind of conjecture,\n"
                        "the features and eras it is checked under, the expected verdict and the statement.");
  p.positionals("CLAIM", &ids, "a claim id or family (default: every claim)")
      .flag("json", &json, "print JSON on stdout instead of the table");
  if (auto rc = p.parse(argc, argv)) return *rc;
  std::string unknown;
  const std::vector<const Claim*> claims = select_claims(ids, &unknown);
  if (!unknown.empty()) return p.error("unknown claim or family '" + unknown + "'");

  if (json) {
    JsonWriter j(std::cout);
    j.begin_object().key("claims").begin_array();
    for (const Claim* c : claims) json_claim(j, *c);
    j.end_array().end_object();
    std::cout << '\n';
    return 0;
  }
  Table t({"id", "about", "kind", "features", "eras", "expect", "statement"});
  for (const Claim* c : claims) {
    const std::string features = c->features.to_string();
    t.row({std::string(c->id), std::string(c->about), std::string(to_string(c->kind)),
           features.empty() ? "(none)" : features, eras_of(*c), std::string(to_string(c->expect)),
           std::string(c->statement)});
  }
  t.print(std::cout);
  return 0;
}

}  // namespace cfsv::cli
