#!/usr/bin/env python3
"""Parses cfsv's JSON and JUnit outputs with python's own parsers, checks their
shape, and prints what the C++ tests compare. Exit status 1 on any error.

  validate.py value FILE PATH...    the JSON value at PATH (a.0.b); strings raw;
                                    with several PATHs, one value per line
  validate.py verify FILE           checks verify's schema; one line per verdict:
                                    "<claim> <engine> <verdict> <agrees>"
  validate.py junit FILE            checks the counts; one line per testcase:
                                    "<classname> <name> pass|fail"
  validate.py xml FILE XPATH [ATTR] the text (or attribute) of the first match
  validate.py schema FILE NAME      checks FILE (JSON, no duplicate keys) against
                                    docs/schemas/NAME.schema.json, and that the
                                    schema is closed: every object of FILE with one
                                    more key fails, and every object schema requires
                                    each property not described as "optional: ..."
                                    (schemas from $CFSV_SCHEMAS when set)
  validate.py perfetto FILE         checks a --perfetto trace's shape; prints
                                    "<what> <count>" lines (stretches, instants
                                    by name, counter tracks, named task tracks)
  validate.py svg FILE              parses an SVG (--svg, --heatmap), checks that every
                                    coordinate lies inside its viewBox; prints the
                                    panels' units, "polylines N" with each line's
                                    title and point count, "cells N" and each
                                    heat-map cell's title
"""
import json
import os
import pathlib
import sys
import xml.etree.ElementTree as ET

SCHEMAS = pathlib.Path(os.environ.get("CFSV_SCHEMAS") or pathlib.Path(__file__).resolve().parents[2] / "docs" / "schemas")


def strict_json(path):
    def bad_constant(c):
        raise ValueError(f"not JSON: {c}")
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=bad_constant)


def value(path, keys, *more):
    def at(v, keys):
        for k in keys.split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
        return v if isinstance(v, str) else json.dumps(v)
    d = strict_json(path)
    sys.stdout.write(at(d, keys) if not more else "".join(at(d, k) + "\n" for k in (keys, *more)))


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


def no_duplicate_keys(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate keys: {sorted(dup)}")
    return dict(pairs)


def resolved(node, doc, name):
    """The schema with every $ref ("#/$defs/x" or "FILE#/$defs/x") replaced by
    its target, itself resolved in its own file: one self-contained schema."""
    if isinstance(node, list):
        return [resolved(n, doc, name) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        file, _, pointer = node["$ref"].partition("#")
        target_doc, target_name = (doc, name) if not file else (load_schema(file), file)
        target = target_doc
        for part in filter(None, pointer.split("/")):
            target = target[part]
        merged = {**resolved(target, target_doc, target_name)}
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    return {k: resolved(v, doc, name) for k, v in node.items()}


def load_schema(file):
    with open(SCHEMAS / file, encoding="utf-8") as f:
        return json.load(f)


def check_closed(node, where="schema"):
    if isinstance(node, list):
        for i, n in enumerate(node):
            check_closed(n, f"{where}[{i}]")
        return
    if not isinstance(node, dict):
        return
    if "properties" in node:
        assert node.get("additionalProperties") is False, f"{where}: additionalProperties is not false"
        optional = {k for k, v in node["properties"].items() if v.get("description", "").startswith("optional:")}
        want = set(node["properties"]) - optional
        assert set(node.get("required", [])) == want, f"{where}: required {sorted(node.get('required', []))} != {sorted(want)}"
    for k, v in node.items():
        if k not in ("properties", "$defs"):
            check_closed(v, f"{where}.{k}")
    for k, v in node.get("properties", {}).items():
        check_closed(v, f"{where}.{k}")


def objects(value, path="$"):
    """Each object of the value with its path, list indices left out ($.tasks[].latency)."""
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from objects(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            yield from objects(v, f"{path}[]")


def schema(path, name):
    import jsonschema  # python3-jsonschema (ci/setup.sh)

    file = f"{name}.schema.json"
    full = resolved(load_schema(file), load_schema(file), file)
    full.pop("$defs", None)
    check_closed(full)
    validator = jsonschema.Draft202012Validator(full)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, object_pairs_hook=no_duplicate_keys)
    validator.validate(doc)
    seen = set()
    for where, o in list(objects(doc)):  # one object of each kind gets a key too many
        if where in seen:
            continue
        seen.add(where)
        o["__undeclared__"] = 0
        assert not validator.is_valid(doc), f"{where}: an undeclared key passes the schema"
        del o["__undeclared__"]
    print("ok")


def perfetto(path):
    with open(path, encoding="utf-8") as f:
        events = json.load(f, object_pairs_hook=no_duplicate_keys)["traceEvents"]
    on_cpu = sorted((e["ts"], e["dur"], e["tid"]) for e in events if e["ph"] == "X" and e["pid"] == 0)
    on_task = sorted((e["ts"], e["dur"], e["args"]["cpu"]) for e in events if e["ph"] == "X" and e["pid"] == 1)
    assert on_cpu == on_task, "each stretch is on its CPU's track and on its task's"
    for e in events:
        if e["ph"] == "X" and e["pid"] == 0:
            assert e["args"]["cpu"] == e["tid"] and e["dur"] > 0, e
    counts = {"stretches": len(on_cpu)}
    for e in events:
        if e["ph"] == "i":
            assert e["s"] in ("t", "g"), e
            key = "op" if e["cat"] == "op" else e["name"]
            counts[key] = counts.get(key, 0) + 1
        if e["ph"] == "C":
            assert e["pid"] == 0 and e["args"]["nr_running"] >= 0, e
    named = {e["tid"] for e in events if e["ph"] == "M" and e["pid"] == 1 and e["name"] == "thread_name"}
    used = {e["tid"] for e in events if e.get("pid") == 1 and e["ph"] in ("X", "i")}
    assert used <= named, "every task track has a name"
    counts["task_tracks"] = len(named)
    counts["counter_tracks"] = len({e["name"] for e in events if e["ph"] == "C"})
    for k in sorted(counts):
        print(k, counts[k])


def svg(path):
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    assert root.tag == ns + "svg", root.tag
    _, _, w, h = (float(v) for v in root.get("viewBox").split())
    assert float(root.get("width")) == w and float(root.get("height")) == h, root.attrib

    def inside(x, y, what):
        assert 0 <= x <= w and 0 <= y <= h, f"{what}: ({x}, {y}) outside 0..{w} x 0..{h}"
    for e in root.iter():
        tag = e.tag[len(ns):]
        if tag in ("text", "rect") and e.get("x") is not None:
            x, y = float(e.get("x")), float(e.get("y"))
            inside(x, y, tag)
            if tag == "rect":
                inside(x + float(e.get("width")), y + float(e.get("height")), tag)
        if tag == "line":
            inside(float(e.get("x1")), float(e.get("y1")), tag)
            inside(float(e.get("x2")), float(e.get("y2")), tag)
    for g in root.findall(f"{ns}g[@class='panel']"):
        print("panel", g.get("data-unit"))
    lines = root.findall(f".//{ns}polyline")
    print("polylines", len(lines))
    for p in lines:
        pts = [tuple(float(v) for v in xy.split(",")) for xy in p.get("points").split()]
        for x, y in pts:
            inside(x, y, "polyline")
        xs = [x for x, _ in pts]
        assert xs == sorted(xs), "a line's points go forward in time"
        print("line", p.find(f"{ns}title").text, len(pts))
    cells = root.findall(f".//{ns}rect[@class='cell']")
    print("cells", len(cells))
    for c in cells:
        print("cell", c.find(f"{ns}title").text)


def xml(path, xpath, attr=None):
    node = ET.parse(path).getroot().find(xpath)
    sys.stdout.write(node.get(attr) if attr else (node.text or ""))


if __name__ == "__main__":
    try:
        {"value": value, "verify": verify, "junit": junit, "xml": xml, "schema": schema, "perfetto": perfetto, "svg": svg}[sys.argv[1]](*sys.argv[2:])
    except Exception as e:  # noqa: BLE001 - any failure is a test failure
        print(f"validate.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
