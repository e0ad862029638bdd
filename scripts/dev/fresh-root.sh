#!/usr/bin/env bash
# A fresh machine of the kind CI runs on, in a folder: Debian 12 from debootstrap plus only what such a
# machine has before anyone installs anything for Mnemo (Node.js 20 with npm, copied from this machine,
# git, CA certificates and this machine's npm/pip registry settings). `npm test` inside it must install
# everything else itself. Used to prove the clean path (issue 31: three runs in a row, each in a new root).
#
#   sudo bash scripts/dev/fresh-root.sh ROOT              # make the root file system (~3 min)
#   sudo bash scripts/dev/fresh-root.sh ROOT --run [N]    # clone this repository's HEAD into it and run
#                                                          # CI's command N times (default 1), each in a
#                                                          # new copy of ROOT; logs in ROOT-run<i>.log
# Needs root, debootstrap and the Debian mirror this machine uses.
set -euo pipefail
ROOT="${1:?usage: fresh-root.sh ROOT [--run [N]]}"
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
log() { printf '[fresh-root] %s\n' "$*"; }

make_root() {
  local r="$1"
  [ -x "$r/usr/bin/node" ] && { log "$r exists"; return; }
  log "debootstrap bookworm into $r"
  debootstrap --variant=minbase --include=ca-certificates,git,python3,procps,iproute2,xz-utils \
    bookworm "$r" http://deb.debian.org/debian >"$r.debootstrap.log" 2>&1 \
    || { tail -20 "$r.debootstrap.log"; exit 1; }
  # This machine's Debian sources (in place of debootstrap's sources.list) and the CA certificates its
  # registries are reached through.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$r/etc/apt/sources.list.d/"
    rm -f "$r/etc/apt/sources.list"
  fi
  if [ -d /usr/local/share/ca-certificates ]; then
    cp -a /usr/local/share/ca-certificates/. "$r/usr/local/share/ca-certificates/"
    chroot "$r" update-ca-certificates >/dev/null
  fi
  # Node.js 20 and npm as this machine kind has them before a session (nodesource build, headers too).
  cp -a /usr/bin/node "$r/usr/bin/node"
  mkdir -p "$r/usr/lib/node_modules" "$r/usr/include"
  cp -a /usr/lib/node_modules/npm "$r/usr/lib/node_modules/npm"
  [ -d /usr/include/node ] && cp -a /usr/include/node "$r/usr/include/node"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$r/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$r/usr/bin/npx"
  # The registry settings of this machine (npm's global npmrc, pip's config): what a fresh machine has.
  for f in /usr/etc/npmrc /etc/npmrc /etc/pip.conf /root/.npmrc; do
    if [ -f "$f" ]; then install -D -m 644 "$f" "$r$f"; fi
  done
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  log "root ready: $(chroot "$r" node --version), npm $(chroot "$r" npm --version)"
}

# A copy left by a run that was killed still has the host's /dev and /sys bound into it: unmount them
# first, and never let rm cross into another file system (rm -rf through a bound /dev deletes the host's).
remove_copy() {
  local c="$1" m
  [ -e "$c" ] || return 0
  for m in $(findmnt -rn -o TARGET | grep -F "$c/" | sort -r); do umount -l "$m"; done
  if findmnt -rn -o TARGET | grep -qF "$c/"; then log "mounts remain under $c; not deleting it"; exit 1; fi
  rm -rf --one-file-system "$c"
}

run_in() { # root, log
  local r="$1" out="$2"
  rm -rf "$r/ci"; git clone -q "$REPO" "$r/ci"
  local t0=$SECONDS
  # A private mount namespace whose root is pivoted to the copy, not chrooted: its mounts vanish with it
  # (even when the run is killed), and user namespaces work inside as on a machine. The kernel refuses
  # them to a chrooted process, which keeps Mnemo's Chroma from being isolated, and so from starting.
  unshare -m --propagation private /usr/bin/env -i R="$r" \
    HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 CI=true \
    bash -c 'set -e
      mount --bind "$R" "$R"
      mount -t proc proc "$R/proc"; mount --rbind /sys "$R/sys"; mount --rbind /dev "$R/dev"
      mkdir -p "$R/dev/shm"; mount -t tmpfs tmpfs "$R/dev/shm"
      cd "$R"; mkdir -p .oldroot; pivot_root . .oldroot; umount -l /.oldroot
      cd /ci && exec bash .ci/run' >"$out" 2>&1 && rc=0 || rc=$?
  log "$(tail -1 "$out" | head -c 200) (exit $rc, $((SECONDS - t0)) s) -> $out"
  return $rc
}

make_root "$ROOT"
if [ "${2:-}" = "--run" ]; then
  n="${3:-1}"; fails=0
  for i in $(seq 1 "$n"); do
    copy="$ROOT-run$i"; remove_copy "$copy"; cp -a "$ROOT" "$copy"
    run_in "$copy" "$copy.log" || fails=$((fails + 1))
  done
  log "$n run(s), $fails failed"
  [ "$fails" -eq 0 ]
fi
