#!/usr/bin/env bash
# Install everything vbench needs on a Debian machine, then run one job:
#   bash scripts/setup.sh run    the main job: `dvc repro`, the default campaign ending in the paper PDF,
#                                then its summary (`vbench campaign summary`) and the PDF's path
#   bash scripts/setup.sh test   ruff check and ruff format --check, then the test suite (unit + integration), with its time and slowest tests
#   bash scripts/setup.sh install
# Idempotent: what is already installed is kept. Run as root, or as a user with sudo: the
# script escalates only when it is not root (a root-only Debian image has no sudo at all).
# The steps are functions so that tests/unit/test_setup_script.py can source this file with
# the installation steps stubbed and check the escalation alone.
set -euo pipefail

#: The suite must stay well inside CI's hard 90-minute limit; past this it fails loudly.
SUITE_LIMIT_S="${VBENCH_SUITE_LIMIT_S:-2700}"

usage() { echo "usage: bash scripts/setup.sh run|test|install" >&2; exit 2; }

escalate() {  # re-executes this script as root when needed; returns when already root
  [ "$(id -u)" -eq 0 ] && return 0
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: needs root to install Debian packages and create network namespaces;" \
         "run it as root, or install sudo" >&2
    exit 1
  fi
  exec sudo -E bash "$script" "$@"
}

install_debian() {
  # The JDK Hadoop runs on, Maven to fetch Hadoop, the testbed's plumbing (iproute2 and
  # nftables for network modes, util-linux's unshare, sshd, sudo for the inventory checks,
  # netcat for the SSH proxy, curl for health probes), git for DVC and the committed-campaign
  # check, the micro-benchmark tools (and strace, the planted system-call stops), the platforms'
  # runtimes (busybox-static: the statx-free ls of gVisor hosts, vbench/testbed/gvisor.py), and the
  # headless browser (with its WebDriver) that the explore notebook's test opens JupyterLab in.
  local apt_packages=(
    openjdk-17-jre-headless maven git
    iproute2 nftables sudo util-linux procps openssh-server openssh-client netcat-openbsd curl
    python3 python3-venv python3-pip
    fio iperf3 sysbench bonnie++ hdparm stress-ng pi strace
    lxc crun runsc busybox-static qemu-system-x86 qemu-utils debootstrap e2fsprogs
    texlive-latex-base texlive-latex-recommended texlive-fonts-recommended texlive-science latexmk poppler-utils
    chromium chromium-driver
  )
  local missing=() p
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

install_python() {
  # A virtual environment of the checkout (Debian's Python refuses system-wide pip installs).
  local python="${VBENCH_PYTHON:-python3}" stamp=.venv/.vbench-installed
  [ -x .venv/bin/python ] || "$python" -m venv .venv
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "setup: installing Python packages into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[pipeline,test]"
    touch "$stamp"
  fi
}

install_hadoop() { .venv/bin/vbench hadoop fetch; }  # Apache's jars from Maven Central (skipped when complete)

install_image() { .venv/bin/vbench image build; }   # the guest image of container and VM hosts (once per recipe)

#: The paper the main job ends in (vbench.paper.build writes it there).
PAPER_PDF=paper/build/paper.pdf

failed_stage() {  # the stage DVC names in its error ("failed to reproduce 'hadoop-suite': ..."), if any
  sed -n "s/.*failed to reproduce\( stages:\)\{0,1\} '\([^']*\)'.*/\2/p" "$1" | head -n 1
}

run_main_job() {
  # DVC needs a git work tree; a copy without .git (e.g. an unpacked archive) gets one.
  [ -e .git ] || { git init -q && git add -A && git -c user.email=vbench@localhost -c user.name=vbench commit -qm "vbench as unpacked"; }
  export PATH="$repo/.venv/bin:$PATH"
  local errors rc=0 stage
  errors="$(mktemp)"
  # DVC's stdout goes straight to the terminal; its stderr too, through tee, so that the stage its
  # error names can be read back: the last line of the job is then vbench's, not DVC's git hints.
  { dvc repro 2>&1 1>&3 3>&- | tee "$errors" >&2; } 3>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    stage="$(failed_stage "$errors")"
    rm -f "$errors"
    if [ -n "$stage" ]; then
      echo "setup: FAILED at stage $stage: see above" >&2
    else
      echo "setup: FAILED: dvc repro exited with $rc, its error names no stage: see above" >&2
    fi
    return "$rc"
  fi
  rm -f "$errors"
  # The answer: what the pipeline's analysis campaign measured, how sure, where to look next.
  if ! vbench campaign summary; then
    echo "setup: FAILED at the summary (the pipeline itself finished): see above" >&2
    return 1
  fi
  echo "setup: done: the paper is $repo/$PAPER_PDF"
}

#: What `ruff check` lints (its rules: [tool.ruff] in pyproject.toml).
LINTED=(vbench tests tasks.py selfbench)

run_lint() {
  # Before the suite: an undefined name or a stray import fails in seconds, not after half an hour.
  if ! .venv/bin/ruff check "${LINTED[@]}"; then
    echo "setup: FAILED: ruff check found the problems listed above; fix them (many are fixed by" \
         "\`.venv/bin/ruff check --fix ${LINTED[*]}\`). The tests did not run." >&2
    return 1
  fi
  if ! .venv/bin/ruff format --check "${LINTED[@]}"; then
    echo "setup: FAILED: ruff format would change the files listed above; run" \
         "\`.venv/bin/ruff format ${LINTED[*]}\`. The tests did not run." >&2
    return 1
  fi
}

run_tests() {
  local t0 rc=0 took
  run_lint || return 1
  t0=$(date +%s)
  # Unit tests first, as their own process: they fail in minutes. In one process with the
  # integration tests, whichever ran second was slower (units 13 min instead of 2.5 after them;
  # integration ~6 min slower after the units: CI of 2026-11-23), so each gets a fresh interpreter.
  # The unit tests are independent and CPU-bound: one worker per core (pytest-xdist). The
  # integration tests are not: they share the machine's namespaces and run one at a time. A module
  # goes to one worker whole (--dist loadscope): its module-scoped fixtures (a paper built with
  # LaTeX, a campaign's statistics) are then built once, not once on each worker.
  .venv/bin/python -m pytest -q -p no:cacheprovider -n auto --dist loadscope --durations=5 --durations-min=1 tests/unit || rc=$?
  if [ "$rc" -eq 0 ]; then
    .venv/bin/python -m pytest -q -p no:cacheprovider --durations=0 --durations-min=5 tests/integration || rc=$?
  fi
  took=$(( $(date +%s) - t0 ))
  printf 'setup: test suite took %d min %02d s (limit %d min; CI kills at 90 min)\n' \
    $((took / 60)) $((took % 60)) $((SUITE_LIMIT_S / 60))
  if [ "$rc" -eq 0 ] && [ "$took" -gt "$SUITE_LIMIT_S" ]; then
    echo "setup: FAILED: the suite took longer than $((SUITE_LIMIT_S / 60)) min: a test got slow; see the" \
         "slowest durations above and share a cluster fixture or mark it slow (docs/testing.md)" >&2
    rc=1
  fi
  return "$rc"
}

main() {
  local job="${1:-}"
  case "$job" in run|test|install) ;; *) usage ;; esac
  escalate "$@"
  cd "$repo"
  install_debian
  install_python
  install_hadoop
  install_image
  case "$job" in
    install) ;;
    run) run_main_job ;;
    test) run_tests ;;
  esac
}

script="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
repo="$(cd "$(dirname "$script")/.." && pwd)"
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
