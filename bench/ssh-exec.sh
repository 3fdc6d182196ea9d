#!/bin/sh
# bench/ssh-exec.sh: `sshelf exec H -- true` against `ssh H true`, same sshd, same ed25519 key, side by side.
# Not a test: prints mean wall time per run of each and the ratio. Needs root (starts sshd on loopback).
# Usage: bench/ssh-exec.sh [RUNS] (default 20); SSHELF_BIN overrides the binary (default: release build).
set -eu
RUNS=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${SSHELF_BIN:-}" ]; then
    (cd "$ROOT" && swift build -c release >/dev/null)
    SSHELF_BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)/sshelf
fi
WORK=$(mktemp -d /tmp/sshelf-bench.XXXXXX)
SSHD_PID=
cleanup() { [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM
mkdir -p /run/sshd "$WORK/home"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$WORK/id_ed25519"
cp "$WORK/id_ed25519.pub" "$WORK/authorized_keys"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
USER_NAME=$(id -un)
cat > "$WORK/sshd_config" <<CONF
Port $PORT
ListenAddress 127.0.0.1
HostKey $WORK/host_key
PidFile $WORK/sshd.pid
AuthorizedKeysFile $WORK/authorized_keys
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
UseDNS no
CONF
/usr/sbin/sshd -D -f "$WORK/sshd_config" -E "$WORK/sshd.log" &
SSHD_PID=$!
sleep 0.5
export SSHELF_HOME="$WORK/sshelf" HOME="$WORK/home"
printf 'Host bench\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' "$PORT" "$USER_NAME" "$WORK/id_ed25519" > "$WORK/ssh_config"
"$SSHELF_BIN" import ssh-config "$WORK/ssh_config" >/dev/null
"$SSHELF_BIN" exec bench --accept-new -- true 2>/dev/null
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$WORK/host_key.pub")" > "$WORK/known_hosts"
SSH="ssh -F none -i $WORK/id_ed25519 -p $PORT -o UserKnownHostsFile=$WORK/known_hosts -o BatchMode=yes -o IdentitiesOnly=yes $USER_NAME@127.0.0.1"
$SSH true

time_runs() {  # prints mean milliseconds per run of "$@"
    start=$(date +%s%N)
    i=0
    while [ $i -lt "$RUNS" ]; do "$@" >/dev/null 2>&1 </dev/null; i=$((i + 1)); done
    end=$(date +%s%N)
    echo $(( (end - start) / RUNS / 1000000 ))
}
SSHELF_MS=$(time_runs "$SSHELF_BIN" exec bench -n -- true)
SSH_MS=$(time_runs $SSH true)
echo "runs: $RUNS (loopback, ed25519 key, libssh2 $("$SSHELF_BIN" version | sed -n 's/^libssh2 //p'), $(ssh -V 2>&1 | cut -d, -f1))"
echo "sshelf exec bench -- true : ${SSHELF_MS} ms"
echo "ssh bench true            : ${SSH_MS} ms"
python3 -c "print(f'ratio sshelf/ssh          : {$SSHELF_MS/max($SSH_MS,1):.2f}')"
