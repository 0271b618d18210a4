#!/usr/bin/env python3
"""Checks the GitHub workflows in .github/workflows/ without running them.

Usage: ci/check_workflows.py [--cfsv PATH] [--self-test] [ROOT]

Every workflow must parse as YAML, name its triggers and jobs, use only the
actions listed below with their documented inputs, and run only scripts of
this repository (or build/cli/cfsv, whose subcommand and flags are checked
against `PATH SUBCOMMAND --help` when --cfsv is given). Then:
  - CI: on push and pull_request, in a debian:bookworm container, runs
    ci/setup.sh, ci/test.sh, `cfsv verify --junit FILE` and uploads FILE;
  - a workflow_run workflow publishes that artifact with dorny/test-reporter;
  - ClusterFuzzLite: pull-request fuzzing in code-change mode for minutes, a
    scheduled batch run of an hour and a scheduled prune, each run_fuzzers step
    after a build_fuzzers step of the same sanitizer, and .clusterfuzzlite/
    holding project.yaml, a base-builder Dockerfile and an executable build.sh.
--self-test breaks the files one way at a time and expects each to be caught.
Exit 0: all checks pass; 1: a check failed (each is printed); 2: bad usage or
no python3-yaml (Debian package python3-yaml; ci/setup.sh installs it).
"""
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("check_workflows: needs PyYAML (Debian: apt-get install python3-yaml)", file=sys.stderr)
    sys.exit(2)

WORKFLOWS = ".github/workflows"
CFLITE = ".clusterfuzzlite"
CFSV = "build/cli/cfsv"  # the default preset's build (CMakePresets.json)
CFLITE_BUILD = "google/clusterfuzzlite/actions/build_fuzzers"
CFLITE_RUN = "google/clusterfuzzlite/actions/run_fuzzers"
TEST_REPORTER = "dorny/test-reporter"
UPLOAD = "actions/upload-artifact"

# The actions the workflows may use and the inputs each documents (its action.yml).
ACTION_INPUTS = {
    "actions/checkout": {
        "repository", "ref", "token", "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user",
        "persist-credentials", "path", "clean", "filter", "sparse-checkout",
        "sparse-checkout-cone-mode", "fetch-depth", "fetch-tags", "show-progress", "lfs",
        "submodules", "set-safe-directory", "github-server-url"},
    UPLOAD: {
        "name", "path", "if-no-files-found", "retention-days", "compression-level",
        "overwrite", "include-hidden-files"},
    TEST_REPORTER: {
        "artifact", "name", "path", "path-replace-backslashes", "reporter", "list-suites",
        "list-tests", "max-annotations", "fail-on-error", "fail-on-empty", "working-directory",
        "report-title", "only-summary", "use-actions-summary", "badge-title", "collapsed",
        "token"},
    CFLITE_BUILD: {
        "language", "dry-run", "allowed-broken-targets-percentage", "sanitizer",
        "project-src-path", "bad-build-check", "keep-unaffected-fuzz-targets", "storage-repo",
        "storage-repo-branch", "storage-repo-branch-coverage", "upload-build", "github-token"},
    CFLITE_RUN: {
        "language", "fuzz-seconds", "dry-run", "sanitizer", "mode", "github-token",
        "storage-repo", "storage-repo-branch", "storage-repo-branch-coverage",
        "report-unreproducible-crashes", "minimize-crashes", "parallel-fuzzing",
        "output-sarif", "report-timeouts", "report-ooms"},
}
PR_FUZZ_SECONDS = (60, 1200)  # code-change fuzzing takes minutes
BATCH_FUZZ_SECONDS = 3600     # batch fuzzing, an hour


def triggers(wf):
    """The workflow's `on:` as a dict (PyYAML reads the key `on` as True)."""
    on = wf.get("on", wf.get(True))
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return {t: None for t in on}
    return on if isinstance(on, dict) else {}


def steps(wf):
    """(job id, job, step index, step) for every step of every job."""
    for job_id, job in (wf.get("jobs") or {}).items():
        for i, step in enumerate((job or {}).get("steps") or []):
            yield job_id, job, i, step


def action(step):
    """The action a step uses, without its @ref ('' for a run step)."""
    return str(step.get("uses", "")).split("@")[0]


def commands(script):
    """The commands of a run: script, as token lists (split at && || ; | and lines)."""
    out = []
    for line in script.replace("\\\n", " ").splitlines():
        cur = []
        for tok in shlex.shlex(line, posix=True, punctuation_chars=";&|"):
            if tok in (";", "&&", "||", "|", "&"):
                out += [cur] if cur else []
                cur = []
            else:
                cur.append(tok)
        out += [cur] if cur else []
    return out


def cfsv_help(cfsv, sub):
    """`cfsv SUB --help`'s text, or None when SUB is not a subcommand."""
    r = subprocess.run([cfsv, sub, "--help"], capture_output=True, text=True, timeout=60)
    return r.stdout + r.stderr if r.returncode == 0 else None


def check_command(where, cmd, root, cfsv):
    words = cmd[1:] if cmd[0] in ("bash", "sh") and len(cmd) > 1 else cmd
    prog = words[0]
    if prog == CFSV:
        if len(words) < 2:
            return [f"{where}: `{CFSV}` without a subcommand"]
        if not cfsv:
            return []
        text = cfsv_help(cfsv, words[1])
        if text is None:
            return [f"{where}: `cfsv {words[1]}` is not a cfsv subcommand"]
        return [f"{where}: `cfsv {words[1]}` has no flag {w}"
                for w in words[2:] if w.startswith("--") and w.split("=")[0] not in text]
    path = os.path.normpath(prog)
    if os.path.isabs(prog) or path.startswith("..") or "/" not in prog:
        return [f"{where}: runs `{prog}`: only scripts of this repository or {CFSV} may run"]
    full = os.path.join(root, path)
    if not os.path.isfile(full):
        return [f"{where}: runs {prog}, which is not in the repository"]
    if words is cmd and not os.access(full, os.X_OK):
        return [f"{where}: runs {prog}, which is not executable"]
    return []


def check_generic(name, wf, root, cfsv):
    errs = []
    if not isinstance(wf, dict):
        return [f"{name}: not a YAML mapping"]
    if not wf.get("name"):
        errs.append(f"{name}: no name")
    if not triggers(wf):
        errs.append(f"{name}: no triggers (on:)")
    if not wf.get("jobs"):
        errs.append(f"{name}: no jobs")
    for job_id, job in (wf.get("jobs") or {}).items():
        if not (job or {}).get("runs-on"):
            errs.append(f"{name}: job {job_id}: no runs-on")
    for job_id, _, i, step in steps(wf):
        where = f"{name}: job {job_id} step {i + 1}"
        if ("uses" in step) == ("run" in step):
            errs.append(f"{where}: needs exactly one of uses: and run:")
        elif "uses" in step:
            if not re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[\w.-]+", str(step["uses"])):
                errs.append(f"{where}: `uses: {step['uses']}` is not OWNER/REPO[/PATH]@REF")
            elif action(step) not in ACTION_INPUTS:
                errs.append(f"{where}: unknown action {action(step)}")
            else:
                errs += [f"{where}: {action(step)} has no input `{k}`"
                         for k in (step.get("with") or {}) if k not in ACTION_INPUTS[action(step)]]
        else:
            for cmd in commands(str(step["run"])):
                errs += check_command(where, cmd, root, cfsv)
    return errs


def runs(step, script):
    """Whether a run: step runs the repository script `script`."""
    return any(script in (c[0], c[1] if len(c) > 1 and c[0] in ("bash", "sh") else None)
               for c in commands(str(step.get("run", ""))))


def check_ci(parsed):
    """The push/pull_request workflow; returns (errors, its name, its artifact)."""
    for name, wf in parsed.items():
        on = triggers(wf)
        jobs = [(job_id, job) for job_id, job in (wf.get("jobs") or {}).items()
                if any(runs(s, "ci/test.sh") for s in (job or {}).get("steps") or [])]
        if not jobs:
            continue
        errs = [f"{name}: not triggered on {t}" for t in ("push", "pull_request") if t not in on]
        job_id, job = jobs[0]
        container = job.get("container")
        image = container.get("image") if isinstance(container, dict) else container
        if image != "debian:bookworm":
            errs.append(f"{name}: job {job_id} runs in {image!r}, not the debian:bookworm container")
        st = job.get("steps") or []
        order = [next((i for i, s in enumerate(st) if runs(s, sc)), None)
                 for sc in ("ci/setup.sh", "ci/test.sh")]
        if order[0] is None or order[0] > order[1]:
            errs.append(f"{name}: job {job_id} does not run ci/setup.sh before ci/test.sh")
        junit = None
        for s in st:
            for c in commands(str(s.get("run", ""))):
                if c[:2] == [CFSV, "verify"] and "--junit" in c[:-1]:
                    junit = c[c.index("--junit") + 1]
        if junit is None:
            errs.append(f"{name}: job {job_id} does not run `{CFSV} verify --junit FILE`")
        uploads = [s for s in st if action(s) == UPLOAD
                   and str((s.get("with") or {}).get("path")) == str(junit)]
        if not uploads:
            errs.append(f"{name}: job {job_id} does not upload the JUnit file {junit}")
            return errs, wf.get("name"), None
        if not re.search(r"always\(\)|!\s*cancelled\(\)", str(uploads[0].get("if", ""))):
            errs.append(f"{name}: the JUnit upload does not run when verify fails (if: !cancelled())")
        return errs, wf.get("name"), (uploads[0].get("with") or {}).get("name")
    return ["no workflow runs ci/test.sh"], None, None


def check_report(parsed, ci_name, artifact):
    for name, wf in parsed.items():
        for _, _, _, s in steps(wf):
            if action(s) != TEST_REPORTER:
                continue
            w = s.get("with") or {}
            errs = []
            if w.get("reporter") != "java-junit":
                errs.append(f"{name}: {TEST_REPORTER} reporter is {w.get('reporter')!r}, not java-junit")
            run_of = (triggers(wf).get("workflow_run") or {}).get("workflows") or []
            if ci_name not in run_of:
                errs.append(f"{name}: not triggered by workflow_run of {ci_name!r}")
            if artifact is None or w.get("artifact") != artifact:
                errs.append(f"{name}: reads artifact {w.get('artifact')!r}, CI uploads {artifact!r}")
            return errs
    return [f"no workflow publishes the JUnit report with {TEST_REPORTER}"]


def check_cflite(parsed, files):
    errs = []
    language = (yaml.safe_load(files.get(f"{CFLITE}/project.yaml") or "") or {}).get("language")
    found = {}  # mode -> [(workflow, fuzz-seconds)]
    for name, wf in parsed.items():
        for job_id, job, i, s in steps(wf):
            if action(s) not in (CFLITE_BUILD, CFLITE_RUN):
                continue
            w = s.get("with") or {}
            where = f"{name}: job {job_id} step {i + 1}"
            if w.get("language", "c++") != language:
                errs.append(f"{where}: language {w.get('language')!r}, {CFLITE}/project.yaml says {language!r}")
            if action(s) == CFLITE_BUILD:
                continue
            before = [b for b in (job.get("steps") or [])[:i] if action(b) == CFLITE_BUILD]
            if not any((b.get("with") or {}).get("sanitizer", "address") == w.get("sanitizer", "address")
                       for b in before):
                errs.append(f"{where}: run_fuzzers without a build_fuzzers step of its sanitizer before it")
            found.setdefault(w.get("mode", "code-change"), []).append((wf, w.get("fuzz-seconds")))
    lo, hi = PR_FUZZ_SECONDS
    wanted = {
        "code-change": ("pull_request", lambda t: isinstance(t, int) and lo <= t <= hi,
                        f"fuzz-seconds in [{lo}, {hi}]"),
        "batch": ("schedule", lambda t: t == BATCH_FUZZ_SECONDS, f"fuzz-seconds {BATCH_FUZZ_SECONDS}"),
        "prune": ("schedule", lambda t: True, ""),
    }
    for mode, (trigger, seconds_ok, what) in wanted.items():
        if not any(trigger in triggers(wf) and seconds_ok(t) for wf, t in found.get(mode, [])):
            errs.append(f"no ClusterFuzzLite run_fuzzers step in mode {mode} on {trigger}"
                        + (f" with {what}" if what else ""))
    docker = files.get(f"{CFLITE}/Dockerfile") or ""
    if not re.search(r"^FROM gcr\.io/oss-fuzz-base/base-builder(:\S+)?\s*$", docker, re.M):
        errs.append(f"{CFLITE}/Dockerfile: not FROM gcr.io/oss-fuzz-base/base-builder")
    if not re.search(r"^COPY \S*\.clusterfuzzlite/build\.sh \$SRC/?\s*$", docker, re.M):
        errs.append(f"{CFLITE}/Dockerfile: does not COPY .clusterfuzzlite/build.sh to $SRC/")
    if not files.get(f"{CFLITE}/build.sh executable"):
        errs.append(f"{CFLITE}/build.sh: missing or not executable")
    return errs


def check(files, root, cfsv):
    """Every error in the workflow files and .clusterfuzzlite/ (`files`: path -> text)."""
    errs, parsed = [], {}
    for path in sorted(files):
        if path.startswith(WORKFLOWS + "/"):
            try:
                parsed[path] = yaml.safe_load(files[path])
            except yaml.YAMLError as e:
                errs.append(f"{path}: not valid YAML: {e}")
    if not parsed:
        return errs + [f"no workflows in {WORKFLOWS}/"]
    for path, wf in parsed.items():
        errs += check_generic(path, wf, root, cfsv)
    parsed = {p: wf for p, wf in parsed.items() if isinstance(wf, dict)}
    ci_errs, ci_name, artifact = check_ci(parsed)
    return errs + ci_errs + check_report(parsed, ci_name, artifact) + check_cflite(parsed, files)


def load(root):
    files = {}
    wdir = os.path.join(root, WORKFLOWS)
    for f in sorted(os.listdir(wdir)) if os.path.isdir(wdir) else []:
        if f.endswith((".yml", ".yaml")):
            with open(os.path.join(wdir, f), encoding="utf-8") as fh:
                files[f"{WORKFLOWS}/{f}"] = fh.read()
    for f in ("project.yaml", "Dockerfile"):
        p = os.path.join(root, CFLITE, f)
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as fh:
                files[f"{CFLITE}/{f}"] = fh.read()
    build = os.path.join(root, CFLITE, "build.sh")
    files[f"{CFLITE}/build.sh executable"] = os.path.isfile(build) and os.access(build, os.X_OK)
    return files


# (file, text in it, replacement, part of the error it must cause).
MUTANTS = [
    ("ci.yml", "container: debian:bookworm", "container: ubuntu:22.04", "not the debian:bookworm container"),
    ("ci.yml", "  pull_request:\n", "", "not triggered on pull_request"),
    ("ci.yml", "run: ci/test.sh", "run: make test", "runs `make`: only scripts"),
    ("ci.yml", "run: ci/test.sh", "run: ci/no_such_script.sh", "no_such_script.sh, which is not in the repository"),
    ("ci.yml", "run: ci/test.sh", "run: |\n          ci/test.sh\n          make", "runs `make`: only scripts"),
    ("ci.yml", "run: ci/setup.sh", "run: ci/setup.sh && ci/no_such_script.sh", "which is not in the repository"),
    ("ci.yml", "run: ci/setup.sh", "run: ci/same_output.sh", "does not run ci/setup.sh before ci/test.sh"),
    ("ci.yml", "run: ci/setup.sh", "run: /bin/true", "only scripts of this repository"),
    ("ci.yml", "run: ci/setup.sh", "run: .clusterfuzzlite/project.yaml", "not executable"),
    ("ci.yml", "verify --junit", "verify --junitx", "has no flag --junitx"),
    ("ci.yml", "cfsv verify", "cfsv verifyy", "is not a cfsv subcommand"),
    ("ci.yml", "path: verify.xml", "path: other.xml", "does not upload the JUnit file"),
    ("ci.yml", "if: ${{ !cancelled() }}", "if: success()", "does not run when verify fails"),
    ("ci.yml", "actions/checkout@v4\n", "actions/checkout\n", "is not OWNER/REPO[/PATH]@REF"),
    ("ci.yml", "if-no-files-found:", "if-no-file-found:", "has no input `if-no-file-found`"),
    ("ci.yml", "jobs:\n  test:", "jobs:\n\ttest:", "not valid YAML"),
    ("ci-report.yml", "reporter: java-junit", "reporter: jest-junit", "not java-junit"),
    ("ci-report.yml", "artifact: cfsv-verify-junit", "artifact: junit", "reads artifact 'junit'"),
    ("ci-report.yml", "workflows: [CI]", "workflows: [Build]", "not triggered by workflow_run of 'CI'"),
    ("cflite_pr.yml", "mode: code-change", "mode: batch", "mode code-change on pull_request"),
    ("cflite_pr.yml", "fuzz-seconds: 300", "fuzz-seconds: 3600", "mode code-change on pull_request"),
    ("cflite_pr.yml", "actions/run_fuzzers@v1", "actions/run_fuzzer@v1", "unknown action"),
    ("cflite_pr.yml", "fuzz-seconds:", "fuzz-second:", "has no input `fuzz-second`"),
    ("cflite_pr.yml", "language: c++", "language: c", "project.yaml says 'c++'"),
    ("cflite_batch.yml", "mode: batch", "mode: code-change", "mode batch on schedule"),
    ("cflite_batch.yml", "fuzz-seconds: 3600", "fuzz-seconds: 600", "mode batch on schedule"),
    ("cflite_batch.yml", "  schedule:\n    - cron: '0 2 * * *'\n", "", "mode batch on schedule"),
    ("cflite_cron.yml", "uses: google/clusterfuzzlite/actions/build_fuzzers@v1\n        with:\n          language: c++",
     "run: ci/setup.sh", "without a build_fuzzers step of its sanitizer"),
    ("cflite_cron.yml", "mode: prune", "mode: coverage", "mode prune on schedule"),
    ("Dockerfile", "FROM gcr.io/oss-fuzz-base/base-builder", "FROM debian", "not FROM gcr.io/oss-fuzz-base"),
    ("Dockerfile", "COPY .clusterfuzzlite/build.sh $SRC/", "COPY build.sh /", "does not COPY .clusterfuzzlite/build.sh"),
]


def self_test(root, cfsv):
    files = load(root)
    fail = 0
    for name, old, new, expected in MUTANTS:
        path = next((p for p in files if p.endswith("/" + name)), None)
        if path is None or not isinstance(files[path], str) or old not in files[path]:
            print(f"FAIL: {name} has no {old!r} (update MUTANTS)")
            fail = 1
            continue
        errs = check({**files, path: files[path].replace(old, new, 1)}, root, cfsv)
        hit = next((e for e in errs if expected in e), None)
        print(f"{'ok' if hit else 'FAIL'}: {name}: {old!r} -> {new!r}: " + (hit or f"not caught: {errs}"))
        fail |= hit is None
    return fail


def main(argv):
    args, cfsv, selftest = [], None, False
    it = iter(argv)
    for a in it:
        if a == "--cfsv":
            cfsv = next(it, None)
        elif a == "--self-test":
            selftest = True
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            args.append(a)
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if cfsv is not None and not os.access(cfsv, os.X_OK):
        print(f"check_workflows: --cfsv {cfsv}: not an executable", file=sys.stderr)
        return 2
    if selftest:
        return self_test(root, cfsv)
    errs = check(load(root), root, cfsv)
    for e in errs:
        print("FAIL:", e)
    if not errs:
        print(f"ok: {len([f for f in load(root) if f.startswith(WORKFLOWS)])} workflows")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
