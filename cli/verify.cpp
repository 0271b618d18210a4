#include "cli/verify.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <ostream>

#include "cli/json.h"
#include "cli/table.h"

namespace cfsv::cli {

namespace {
constexpr std::size_t kMaxCellDetail = 32;

// The first line of `s`, cut to `max` characters; *complete: nothing was cut.
std::string shorten(std::string_view s, std::size_t max, bool* complete) {
  std::string_view first = s.substr(0, s.find('\n'));
  *complete = first.size() == s.size() && first.size() <= max;
  if (first.size() <= max) return std::string(first);
  return std::string(first.substr(0, max - 3)) + "...";
}

std::string seconds_text(double s, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, s);
  return buf;
}

void json_values(JsonWriter& j, const std::vector<Value>& vs) {
  for (const Value& v : vs) {
    const std::string_view digits = std::string_view(v.text).substr(v.text.starts_with('-') ? 1 : 0);
    if (digits.empty() || digits.find_first_not_of("0123456789") != digits.npos) j.field(v.name, v.text);
    else if (v.text.starts_with('-')) j.field(v.name, std::stoll(v.text));
    else j.field(v.name, std::stoull(v.text));
  }
}

double total_seconds(const VerifyReport& report) {
  double t = 0;
  for (const ClaimVerdicts& c : report.claims)
    for (const EngineResult& r : c.results) t += r.seconds;
  return t;
}
}  // namespace

bool ClaimVerdicts::ok() const {
  for (const EngineResult& r : results)
    if (!agrees(claim.expect, r.verdict)) return false;
  return true;
}

std::size_t VerifyReport::verdicts() const {
  std::size_t n = 0;
  for (const ClaimVerdicts& c : claims) n += c.results.size();
  return n;
}

std::size_t VerifyReport::disagreements() const {
  std::size_t n = 0;
  for (const ClaimVerdicts& c : claims)
    for (const EngineResult& r : c.results) n += !agrees(c.claim.expect, r.verdict);
  return n;
}

std::size_t VerifyReport::interrupted() const {
  std::size_t n = 0;
  for (const ClaimVerdicts& c : claims)
    for (const EngineResult& r : c.results) n += r.verdict == Verdict::unknown && r.detail == kInterrupted;
  return n;
}

VerifyReport run_verify(std::span<const Claim> claims, std::span<const EngineCheck> engines,
                        const CheckConfig& config, const Progress& progress, const std::atomic<bool>* stop) {
  const auto stopped = [stop] { return stop && stop->load(); };
  VerifyReport report{config, {}, {}};
  for (const EngineCheck& e : engines) report.engines.push_back(e.engine);
  const std::size_t total = claims.size() * engines.size();
  std::size_t done = 0;
  for (const Claim& claim : claims) {
    ClaimVerdicts& cv = report.claims.emplace_back(ClaimVerdicts{claim, {}});
    for (const EngineCheck& e : engines) {
      if (progress && !stopped()) progress(claim, e.engine, done, total);
      const auto start = std::chrono::steady_clock::now();
      EngineResult r;
      try {
        if (!stopped()) r = e.check(claim, config);
      } catch (const std::exception& ex) {
        r = {e.engine, Verdict::unknown, std::string("the engine threw: ") + ex.what(), "", 0, {}};
      } catch (...) {
        r = {e.engine, Verdict::unknown, "the engine threw a non-standard exception", "", 0, {}};
      }
      if (stopped()) r = {e.engine, Verdict::unknown, std::string(kInterrupted), "", 0, {}};
      r.engine = e.engine;
      if (r.seconds <= 0) r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      cv.results.push_back(std::move(r));
      ++done;
    }
  }
  return report;
}

std::string verdict_cell(const EngineResult& r, bool* complete) {
  bool whole = true;
  std::string cell;
  switch (r.verdict) {
    case Verdict::refuted:
      cell = "refuted";
      whole = r.detail.empty();
      break;
    case Verdict::proved:
      cell = "proved (" + seconds_text(r.seconds, "%.1f s") + ")";
      whole = r.detail.empty();
      break;
    case Verdict::passed:
      cell = r.detail.empty() ? "passed" : "passed (" + shorten(r.detail, kMaxCellDetail, &whole) + ")";
      break;
    case Verdict::unknown:
      cell = "unknown: " + (r.detail.empty() ? std::string("no reason given") : shorten(r.detail, kMaxCellDetail, &whole));
      break;
  }
  if (complete) *complete = whole && r.reproducer.empty();
  return cell;
}

void print_table(std::ostream& out, const VerifyReport& report) {
  std::vector<std::string> header = {"claim", "expected"};
  for (Engine e : report.engines) header.emplace_back(to_string(e));
  header.emplace_back("ok");
  Table table(header);
  for (const ClaimVerdicts& c : report.claims) {
    std::vector<std::string> row = {std::string(c.claim.id), std::string(to_string(c.claim.expect))};
    for (const EngineResult& r : c.results) row.push_back(verdict_cell(r));
    row.emplace_back(c.ok() ? "ok" : "DISAGREE");
    table.row(std::move(row));
  }
  table.print(out);

  for (const ClaimVerdicts& c : report.claims) {
    bool header_done = false;
    for (const EngineResult& r : c.results) {
      bool complete = true;
      verdict_cell(r, &complete);
      if (complete) continue;
      if (!header_done) out << '\n' << c.claim.id << '\n';
      header_done = true;
      const std::string_view detail = r.detail;
      const std::size_t nl = detail.find('\n');
      out << "  " << to_string(r.engine) << ": " << to_string(r.verdict) << (detail.empty() ? "" : ": ")
          << detail.substr(0, nl) << '\n';
      if (nl != detail.npos) out << indented(detail.substr(nl + 1), "    ");
      if (!r.reproducer.empty()) {
        out << "    reproducer:\n";
        out << indented(r.reproducer, "      ");
      }
    }
  }
  out << '\n'
      << report.claims.size() << " claims, " << report.verdicts() << " engine verdicts, " << report.disagreements()
      << " disagree\n";
}

void json_counterexample(JsonWriter& j, const Counterexample& c) {
  if (c.empty()) {
    j.null();
    return;
  }
  j.begin_object().field("summary", c.summary).field("note", c.note);
  json_values(j, c.values);
  if (!c.levels.empty()) {
    j.key("levels").begin_array();
    for (const std::vector<Value>& level : c.levels) {
      j.begin_object();
      json_values(j, level);
      j.end_object();
    }
    j.end_array();
  }
  if (!c.scenario.empty()) j.field("scenario", c.scenario);
  j.end_object();
}

void print_json(std::ostream& out, const VerifyReport& report) {
  JsonWriter j(out);
  j.begin_object().field("seed", report.config.seed).field("budget", to_string(report.config.budget));
  j.key("claims").begin_array();
  for (const ClaimVerdicts& c : report.claims) {
    j.begin_object().field("id", c.claim.id).field("about", c.claim.about).field("expect", to_string(c.claim.expect));
    j.key("engines").begin_object();
    for (const EngineResult& r : c.results) {
      j.key(to_string(r.engine)).begin_object();
      j.field("verdict", to_string(r.verdict)).field("agrees", agrees(c.claim.expect, r.verdict));
      j.field("detail", r.detail).field("reproducer", r.reproducer).field("seconds", r.seconds);
      json_counterexample(j.key("counterexample"), r.counterexample);
      j.end_object();
    }
    j.end_object().field("ok", c.ok()).end_object();
  }
  j.end_array();
  j.key("summary").begin_object();
  j.field("claims", report.claims.size()).field("verdicts", report.verdicts());
  j.field("disagree", report.disagreements()).end_object();
  j.field("ok", report.ok()).end_object();
  out << '\n';
}

std::string xml_escape(std::string_view s, bool attribute) {
  std::string r;
  for (const char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&apos;"; break;
      case '\r': r += "&#13;"; break;
      case '\n': r += attribute ? "&#10;" : "\n"; break;
      case '\t': r += attribute ? "&#9;" : "\t"; break;
      default: r += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    }
  }
  return r;
}

void print_junit(std::ostream& out, const VerifyReport& report) {
  const std::string counts = "tests=\"" + std::to_string(report.verdicts()) + "\" failures=\"" +
                             std::to_string(report.disagreements()) + "\" errors=\"0\" time=\"" +
                             seconds_text(total_seconds(report), "%.3f") + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"cfsv verify\" " << counts << ">\n"
      << "  <testsuite name=\"cfsv verify\" " << counts << " skipped=\"0\">\n"
      << "    <properties>\n"
      << "      <property name=\"seed\" value=\"" << report.config.seed << "\"/>\n"
      << "      <property name=\"budget\" value=\"" << to_string(report.config.budget) << "\"/>\n"
      << "    </properties>\n";
  for (const ClaimVerdicts& c : report.claims) {
    for (const EngineResult& r : c.results) {
      out << "    <testcase classname=\"" << xml_escape(c.claim.id, true) << "\" name=\"" << to_string(r.engine)
          << "\" time=\"" << seconds_text(r.seconds, "%.3f") << "\">\n";
      std::string body = r.detail;
      if (!r.reproducer.empty()) body += (body.empty() ? "" : "\n") + r.reproducer;
      if (!agrees(c.claim.expect, r.verdict)) {
        const std::string message = "expected " + std::string(to_string(c.claim.expect)) + ", got " +
                                    std::string(to_string(r.verdict)) + (r.detail.empty() ? "" : ": " + r.detail);
        out << "      <failure type=\"disagree\" message=\"" << xml_escape(message, true) << "\">"
            << xml_escape(body) << "</failure>\n";
      } else if (!body.empty()) {
        out << "      <system-out>" << xml_escape(body) << "</system-out>\n";
      }
      out << "    </testcase>\n";
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace cfsv::cli
