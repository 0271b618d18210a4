// The expect line of a reproducer (docs/scenario-format.md, "Expect lines"):
// `# expect: pass` or `# expect: violation <invariant>` on the first line. A
// comment line that starts like one but is not exactly one is an error, so a
// typo cannot pass silently.
#include <cctype>

#include "invariants.h"
#include "scenario_text.h"
#include "scenario_values.h"

namespace cfsv {

using namespace scenario_text;

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// One line of a comment, read token by token with 1-based columns.
struct Line {
  std::string_view text;
  std::size_t pos = 0;
  void skip_blanks() {
    while (pos < text.size() && is_blank(text[pos])) ++pos;
  }
  unsigned col() const { return static_cast<unsigned>(pos + 1); }
  std::string_view word() {  // letters, digits, '-', '_'
    const std::size_t from = pos;
    while (pos < text.size() && (is_name_char(text[pos]))) ++pos;
    return text.substr(from, pos - from);
  }
};

bool starts_like_expect(std::string_view word) {
  if (word.size() < 6) return false;
  for (std::size_t i = 0; i < 6; ++i)
    if (std::tolower(static_cast<unsigned char>(word[i])) != "expect"[i]) return false;
  return true;
}

}  // namespace

std::variant<Expectation, ParseError> parse_expectation(std::string_view text, std::string_view filename) {
  Expectation e;
  unsigned line_no = 0;
  auto error = [&](unsigned col, std::string message) {
    return ParseError{std::string(filename), line_no, col, std::move(message)};
  };
  const std::string usage = "; the expect line is `# expect: pass` or `# expect: violation <invariant>`";
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    Line l{text.substr(pos, nl - pos)};
    pos = nl + 1;
    ++line_no;
    l.skip_blanks();
    if (l.pos == l.text.size() || l.text[l.pos] != '#') continue;
    ++l.pos;
    l.skip_blanks();
    const unsigned word_col = l.col();
    const std::string_view word = l.word();
    if (!starts_like_expect(word)) continue;
    if (line_no != 1) return error(1, "an expect line must be the first line of the file" + usage);
    if (word != "expect") return error(word_col, "expected 'expect', got " + quote(word) + usage);
    if (l.pos == l.text.size() || l.text[l.pos] != ':') return error(l.col(), "expected ':' after 'expect'" + usage);
    ++l.pos;
    l.skip_blanks();
    const unsigned verdict_col = l.col();
    const std::string_view verdict = l.word();
    if (verdict == "violation") {
      l.skip_blanks();
      const unsigned name_col = l.col();
      const std::string_view name = l.word();
      if (name.empty()) return error(name_col, "expected an invariant after 'violation'" + usage);
      if (!invariant_by_name(name)) {
        std::string known;
        for (const InvariantInfo& i : all_invariants()) known += (known.empty() ? "" : ", ") + std::string(i.name);
        return error(name_col, "unknown invariant " + quote(name) + " (known: " + known + ")");
      }
      e.violation = std::string(name);
    } else if (verdict != "pass") {
      return error(verdict_col, "expected pass or violation <invariant>, got " +
                                    quote(verdict.empty() ? l.text.substr(l.pos) : verdict) + usage);
    }
    l.skip_blanks();
    if (l.pos != l.text.size()) return error(l.col(), "unexpected " + quote(l.text.substr(l.pos)) + " after the verdict");
    e.stated = true;
  }
  return e;
}

}  // namespace cfsv
