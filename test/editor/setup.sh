#!/usr/bin/env bash
# Installs everything the editor test harness (test/editor/run.mjs) needs:
#   - Debian packages, through scripts/system-deps.sh (the project's one list):
#     chromium (the browser playwright-core drives), ripgrep (stands in for
#     @vscode/ripgrep's GitHub download), libkrb5-dev (kerberos native module).
#   - test/editor/node_modules from the committed package-lock.json, including
#     code-server's postinstall (a nested `npm install` of VS Code's own
#     dependencies with native builds).
# Idempotent: a stamp file records what was installed; a re-run with nothing
# changed only checks and exits in about a second.
# Writes only under test/editor/ (node_modules/, .cache/) besides apt and
# npm's own download cache.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="$HERE/.cache"
STAMP="$HERE/node_modules/.mnemo-editor-setup"
SETUP_REV=1                 # bump to force a reinstall after changing this script
RG_PKG_VERSION=1.15.11      # @vscode/ripgrep version pinned by code-server 4.100.3's npm-shrinkwrap
RG_ASSET_VERSION=v13.0.0-10 # VERSION constant in @vscode/ripgrep@1.15.11 lib/postinstall.js

log() { printf '[editor-setup] %s\n' "$*"; }
die() { printf '[editor-setup] ERROR: %s\n' "$*" >&2; exit 1; }
t0=$SECONDS

# ---------------------------------------------------------------- apt ------
# One list of Debian packages for the whole project (7zip, chromium, ripgrep, libkrb5-dev, ...).
bash "$HERE/../../scripts/system-deps.sh" || die "system packages could not be installed"
[ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing after apt install"
[ -x /usr/bin/rg ] || die "/usr/bin/rg missing after apt install"

# ------------------------------------------------------------ up to date? --
want_stamp="rev=$SETUP_REV node=$(node -p 'process.versions.node.split(".")[0]') lock=$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1)"
VSC="$HERE/node_modules/code-server/lib/vscode"
installed_ok() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want_stamp" ] \
    && [ -x "$VSC/node_modules/@vscode/ripgrep/bin/rg" ] \
    && [ -f "$VSC/node_modules/node-pty/build/Release/pty.node" ] \
    && [ -e "$VSC/node_modules.asar" ] \
    && [ -x "$HERE/node_modules/.bin/code-server" ] \
    && [ -f "$HERE/node_modules/playwright-core/package.json" ]
}
if installed_ok; then
  log "node_modules up to date ($((SECONDS - t0))s)"
  exit 0
fi

# ------------------------------------------- ripgrep "download" cache ------
# @vscode/ripgrep's postinstall looks for
#   $(os.tmpdir())/vscode-ripgrep-cache-<pkg version>/ripgrep-<asset version>-<target>.tar.gz
# before asking api.github.com, then runs `tar xvf <it> -C bin/` and expects bin/rg.
# So: a tarball with Debian's rg at its root, and TMPDIR pointing at its parent.
case "$(node -p process.arch)" in
  x64) rg_target=x86_64-unknown-linux-musl ;;
  arm64) rg_target=aarch64-unknown-linux-musl ;;
  *) die "unsupported arch $(node -p process.arch)" ;;
esac
mkdir -p "$CACHE/tmp"
RG_CACHE_DIR="$CACHE/tmp/vscode-ripgrep-cache-$RG_PKG_VERSION"
RG_TARBALL="$RG_CACHE_DIR/ripgrep-$RG_ASSET_VERSION-$rg_target.tar.gz"
mkdir -p "$RG_CACHE_DIR"
if [ ! -s "$RG_TARBALL" ]; then
  stage="$(mktemp -d "$CACHE/tmp/rg-stage.XXXXXX")"
  install -m 755 /usr/bin/rg "$stage/rg"
  tar -czf "$RG_TARBALL.part" -C "$stage" rg
  mv "$RG_TARBALL.part" "$RG_TARBALL"
  rm -rf "$stage"
fi

# ------------------------------------------------------------- npm ci ------
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
NESTED_ALLOW="esbuild,@parcel/watcher,@vscode/deviceid,@vscode/ripgrep,@vscode/spdlog,@vscode/windows-process-tree,@vscode/windows-registry,kerberos,native-watchdog,node-pty"

export npm_config_unsafe_perm=true   # code-server's postinstall refuses to run as root without it
export npm_config_yes=true
export npm_config_update_notifier=false
export npm_config_audit=false
export npm_config_fund=false
# Fail (instead of silently skipping) if any dependency's install script is not allowed.
export npm_config_strict_allow_scripts=true
# node-gyp must build against the installed headers: it cannot download them here.
if [ -f /usr/include/node/node_version.h ]; then export npm_config_nodedir=/usr; fi
export TMPDIR="$CACHE/tmp"

LOG="$CACHE/npm-ci.log"
run_npm() { # step-name, args...
  local name="$1"; shift
  log "$name (log: $LOG)"
  if ! (cd "$HERE" && timeout 1500 npm "$@" >>"$LOG" 2>&1); then
    tail -n 60 "$LOG" >&2
    die "$name failed (full log: $LOG)"
  fi
}
rm -f "$STAMP" "$LOG"
run_npm "npm ci --ignore-scripts" ci --ignore-scripts
for d in "$VSC" "$VSC/extensions"; do
  [ -f "$d/package.json" ] || die "unexpected code-server layout: no $d/package.json"
  printf 'allow-scripts=%s\n' "$NESTED_ALLOW" > "$d/.npmrc"
done
run_npm "npm rebuild (code-server postinstall: VS Code deps + native modules)" rebuild --foreground-scripts
if grep -q 'not yet covered by allowScripts' "$LOG"; then
  grep -A12 'not yet covered by allowScripts' "$LOG" >&2 || true
  die "npm skipped some install scripts (see $LOG)"
fi

# --------------------------------------------------------------- verify ----
"$VSC/node_modules/@vscode/ripgrep/bin/rg" --version >/dev/null || die "bundled rg does not run"
[ -f "$VSC/node_modules/node-pty/build/Release/pty.node" ] || die "node-pty was not built (code-server postinstall did not run?)"
[ -e "$VSC/node_modules.asar" ] || die "code-server postinstall did not finish (no node_modules.asar)"
# code-server writes a default config and logs under XDG dirs even for --version:
# keep them (and HOME) inside .cache so nothing lands in the real home folder.
cs_home="$CACHE/cs-home"
mkdir -p "$cs_home"
cs_version="$(HOME="$cs_home" XDG_CONFIG_HOME="$cs_home/.config" XDG_DATA_HOME="$cs_home/.local/share" \
  XDG_CACHE_HOME="$cs_home/.cache" XDG_STATE_HOME="$cs_home/.local/state" \
  timeout 60 "$HERE/node_modules/.bin/code-server" --version 2>/dev/null | grep -E '^[0-9]+\.' | head -n1)" \
  || die "code-server --version failed"
[ -n "$cs_version" ] || die "code-server --version printed no version"
log "code-server $cs_version"
echo "$want_stamp" > "$STAMP"
log "done ($((SECONDS - t0))s)"
