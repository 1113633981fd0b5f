# Sourced by the .ci scripts: the build trees they share and how each is
# configured, in one place, so .ci/example, .ci/test, .ci/fuzz and .ci/long
# build each tree once with the same flags.
#
#   build       the plain build: GCC, RelWithDebInfo (-O2, line tables
#               only: -g1), warnings are errors. .ci/example and .ci/test.
#   build-san   the sanitizer build: clang, -O1, line tables only, ASan +
#               UBSan on everything, and libFuzzer's coverage, so the tests
#               and the fuzz targets come from one build. .ci/test,
#               .ci/fuzz, .ci/long.
#   build-ci-checker  the checker alone (-DPTESHARE_RUNTIME_CHECK_ONLY=ON);
#               build-checker is the README's, with its own generator.

jobs=$(nproc)

# configure DIR ARGS...: cmake -S . -B DIR ARGS, with Ninja for a new tree;
# a tree that exists keeps the generator it was made with (a README command
# may have made it with another), so the two never collide.
configure() {
  local dir=$1
  shift
  local generator=(-G Ninja)
  if [ -f "$dir/CMakeCache.txt" ]; then generator=(); fi
  cmake -S . -B "$dir" "${generator[@]}" "$@" >/dev/null
}

plain_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
             -DPTESHARE_WERROR=ON)

configure_plain() {  # configure_plain ARGS...
  configure build "${plain_flags[@]}" "$@"
}

configure_sanitized() {
  configure build-san -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DPTESHARE_FUZZ=ON \
    -DPTESHARE_BUILD_BENCHMARKS=OFF -DPTESHARE_WERROR=ON
}

# libFuzzer's runtime is its own Debian package, libclang-rt-N-dev.
install_fuzzer_runtime() {
  local rt
  rt="libclang-rt-$(clang++ -dumpversion | cut -d. -f1)-dev"
  if ! dpkg-query -W -f='${Status}' "$rt" 2>/dev/null | grep -q "install ok installed"; then
    echo "pteshare: installing $rt" >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$rt" >/dev/null
  fi
}

# stage NAME: starts a timed stage (prints "== NAME"); stages_report prints
# every stage's wall seconds at the end.
stage_names=()
stage_starts=()
stage() {
  stage_names+=("$1")
  stage_starts+=("$(date +%s)")
  echo "== $1"
}
stages_report() {
  local end
  end=$(date +%s)
  echo "== time per stage (wall s)"
  local i next
  for i in "${!stage_names[@]}"; do
    next=${stage_starts[$((i + 1))]:-$end}
    printf '%6d  %s\n' $((next - stage_starts[i])) "${stage_names[$i]}"
  done
  printf '%6d  total\n' $((end - stage_starts[0]))
}

# run_ctest DIR ARGS...: ctest over DIR's tests, its output also kept in
# DIR/ctest.log; counts what passed, failed and was skipped for
# tests_report.
tests_passed=0
tests_failed=0
tests_skipped=0
run_ctest() {
  local dir=$1
  shift
  local status=0
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure "$@" 2>&1 | tee "$dir/ctest.log" ||
    status=$?
  local total failed skipped
  total=$(sed -nE 's/.*tests passed, [0-9]+ tests? failed out of ([0-9]+).*/\1/p' "$dir/ctest.log")
  failed=$(sed -nE 's/.*tests passed, ([0-9]+) tests? failed out of.*/\1/p' "$dir/ctest.log")
  skipped=$(grep -c '(Skipped)$' "$dir/ctest.log" || true)
  if [ -z "$total" ]; then return 1; fi
  tests_passed=$((tests_passed + total - failed - skipped))
  tests_failed=$((tests_failed + failed))
  tests_skipped=$((tests_skipped + skipped))
  return $status
}
# The plain closing line CI reads: every ctest run of this script added up.
tests_report() {
  echo "tests: $tests_passed passed, $tests_failed failed, $tests_skipped skipped"
}
