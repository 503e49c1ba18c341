#!/usr/bin/env bash
# Install everything vbench needs on a Debian machine, then run one job:
#   scripts/setup.sh run    the main job: `dvc repro`, the default campaign ending in the paper PDF
#   scripts/setup.sh test   the test suite (unit + integration)
# Idempotent: what is already installed is kept; run it as root (it re-executes with sudo).
set -euo pipefail

job="${1:-}"
case "$job" in run|test|install) ;; *) echo "usage: $0 run|test|install" >&2; exit 2 ;; esac

if [ "$(id -u)" -ne 0 ]; then
  exec sudo -E bash "$0" "$@"
fi

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

# Debian packages: the JDK Hadoop runs on, Maven to fetch Hadoop, the testbed's plumbing
# (iproute2 and nftables for network modes, util-linux's unshare, sshd, sudo for the inventory
# checks, netcat for the SSH proxy, curl for health probes)
# and the micro-benchmark tools.
apt_packages=(
  openjdk-17-jre-headless maven
  iproute2 nftables sudo util-linux procps openssh-server openssh-client netcat-openbsd curl
  python3 python3-venv python3-pip
  fio iperf3 sysbench bonnie++ hdparm stress-ng pi
  lxc crun qemu-system-x86 qemu-utils debootstrap e2fsprogs
  texlive-latex-base texlive-latex-recommended texlive-fonts-recommended texlive-science latexmk poppler-utils
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages in a virtual environment of the checkout (Debian's Python refuses
# system-wide pip installs).
python="${VBENCH_PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=.venv/.vbench-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[pipeline,test]"
  touch "$stamp"
fi

# Apache Hadoop's jars from Maven Central into the cache (skipped when complete).
.venv/bin/vbench hadoop fetch

# The guest image of container and VM hosts (debootstrap; built once per recipe, minutes).
.venv/bin/vbench image build

case "$job" in
  install) ;;
  run)
    # DVC needs a git work tree; a copy without .git (e.g. an unpacked archive) gets one.
    [ -e .git ] || { git init -q && git add -A && git -c user.email=vbench@localhost -c user.name=vbench commit -qm "vbench as unpacked"; }
    export PATH="$repo/.venv/bin:$PATH"
    exec dvc repro ;;
  test) exec .venv/bin/python -m pytest -q -p no:cacheprovider --durations=25 tests ;;
esac
