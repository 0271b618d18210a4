#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build of cfs-verify's fuzz targets (fuzz/fuzz_*.cpp).
# Uses the OSS-Fuzz variables: $CXX $CXXFLAGS $LIB_FUZZING_ENGINE $SRC $OUT
# ($WORK for the build tree, default a temporary directory). Each target goes
# to $OUT/<target> with its seed corpus as $OUT/<target>_seed_corpus.zip.
# Runs by hand too: fuzz/test_clusterfuzzlite_build.sh shows how.
: "${CXX:?}" "${LIB_FUZZING_ENGINE:?}" "${SRC:?}" "${OUT:?}"
CXXFLAGS=${CXXFLAGS:-}
PROJECT=${CFSV_SOURCE_DIR:-$SRC/cfs-verify}
BUILD=${WORK:-$(mktemp -d)}/cfs-verify-build
JOBS=${CFSV_BUILD_JOBS:-$(nproc)}

cmake -S "$PROJECT" -B "$BUILD" \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_TYPE=None \
  -DCFSV_FUZZ_ONLY=ON \
  -DCFSV_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$BUILD" -j"$JOBS"

# zip -j DEST FILES..., or python3's zipfile when zip is missing.
zip_flat() {
  local dest=$1
  shift
  if command -v zip >/dev/null 2>&1; then
    zip -q -j "$dest" "$@"
  elif command -v python3 >/dev/null 2>&1; then
    python3 - "$dest" "$@" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for f in sys.argv[2:]:
        z.write(f, os.path.basename(f))
PY
  else
    echo "build.sh: neither zip nor python3: $dest not written" >&2
  fi
}

mkdir -p "$OUT"
for src in "$PROJECT"/fuzz/fuzz_*.cpp; do
  target=$(basename "$src" .cpp)
  cp "$BUILD/fuzz/$target" "$OUT/$target"
  if [ -f "$PROJECT/fuzz/$target.options" ]; then cp "$PROJECT/fuzz/$target.options" "$OUT/"; fi
  short=${target#fuzz_}
  for corpus in "$PROJECT/fuzz/corpus/$short" "$PROJECT/fuzz/corpus/$target"; do
    if [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ]; then
      rm -f "$OUT/${target}_seed_corpus.zip"
      zip_flat "$OUT/${target}_seed_corpus.zip" "$corpus"/*
      break
    fi
  done
  echo "build.sh: $OUT/$target"
done
