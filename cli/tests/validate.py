#!/usr/bin/env python3
"""Parses cfsv's JSON and JUnit outputs with python's own parsers, checks their
shape, and prints what the C++ tests compare. Exit status 1 on any error.

  validate.py value FILE PATH       the JSON value at PATH (a.0.b); strings raw
  validate.py verify FILE           checks verify's schema; one line per verdict:
                                    "<claim> <engine> <verdict> <agrees>"
  validate.py junit FILE            checks the counts; one line per testcase:
                                    "<classname> <name> pass|fail"
  validate.py xml FILE XPATH [ATTR] the text (or attribute) of the first match
"""
import json
import sys
import xml.etree.ElementTree as ET


def strict_json(path):
    def bad_constant(c):
        raise ValueError(f"not JSON: {c}")
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=bad_constant)


def value(path, keys):
    v = strict_json(path)
    for k in keys.split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
    sys.stdout.write(v if isinstance(v, str) else json.dumps(v))


def verify(path):
    d = strict_json(path)
    assert isinstance(d["seed"], int) and d["budget"] in ("smoke", "ci", "long"), d
    assert isinstance(d["ok"], bool)
    disagree = 0
    for c in d["claims"]:
        assert isinstance(c["id"], str) and c["expect"] in ("holds", "refuted"), c
        assert isinstance(c["engines"], dict) and isinstance(c["ok"], bool), c
        for name, e in c["engines"].items():
            assert name in ("properties", "fuzz", "proofs"), name
            assert e["verdict"] in ("proved", "passed", "refuted", "unknown"), e
            assert isinstance(e["detail"], str) and isinstance(e["reproducer"], str), e
            assert isinstance(e["seconds"], (int, float)) and isinstance(e["agrees"], bool), e
            cx = e["counterexample"]
            assert cx is None or (isinstance(cx, dict) and isinstance(cx["summary"], str)), e
            disagree += not e["agrees"]
            print(c["id"], name, e["verdict"], str(e["agrees"]).lower())
        assert c["ok"] == all(e["agrees"] for e in c["engines"].values()), c
    assert d["summary"]["disagree"] == disagree and d["ok"] == (disagree == 0), d["summary"]


def junit(path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", root.tag
    cases = root.findall("./testsuite/testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    for node in (root, root.find("testsuite")):
        assert int(node.get("tests")) == len(cases), node.attrib
        assert int(node.get("failures")) == len(failed), node.attrib
    for c in cases:
        assert float(c.get("time")) >= 0
        print(c.get("classname"), c.get("name"), "fail" if c in failed else "pass")


def xml(path, xpath, attr=None):
    node = ET.parse(path).getroot().find(xpath)
    sys.stdout.write(node.get(attr) if attr else (node.text or ""))


if __name__ == "__main__":
    try:
        {"value": value, "verify": verify, "junit": junit, "xml": xml}[sys.argv[1]](*sys.argv[2:])
    except Exception as e:  # noqa: BLE001 - any failure is a test failure
        print(f"validate.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
