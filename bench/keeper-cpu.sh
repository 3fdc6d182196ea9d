#!/usr/bin/env bash
# keeper-cpu.sh: the CPU a warm session's daemon spends per call — sshelf's keeper (`exec --persist`) against
# OpenSSH's ControlPersist master — on one idle connection to a real sshd on loopback (its own host key, client key
# and login user with /bin/sh and an empty home, as bench/fleet.bench does). Each round runs CALLS calls of `true`
# through each daemon in turn (`sshelf exec H -- true`, `ssh … H true`, both with stdin from /dev/null) and reads the
# daemon's utime+stime (/proc/PID/stat: every thread's, the exited ones too) before and after; it prints each round's
# ms of CPU per call (and wall ms per call) and the median over ROUNDS. Only the daemons are measured, not the clients
# or sshd, so the machine's other load matters little. Needs root (starts its own sshd, makes a user). SSHELF_BIN
# (default: this checkout's .build/release/sshelf), CALLS (300), ROUNDS (5), EXEC_FLAGS (e.g. -n, added to sshelf's
# calls); KEEP=1 keeps the work folder.
#   usage: bench/keeper-cpu.sh            e.g. SSHELF_BIN=.build/debug/sshelf ROUNDS=3 bench/keeper-cpu.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sshelf=$(realpath "${SSHELF_BIN:-$root/.build/release/sshelf}")
calls=${CALLS:-300}
rounds=${ROUNDS:-5}
work=$(mktemp -d /tmp/keeper-cpu.XXXXXX)
user=sshelf-kcpu-$$
sshd_pid=""
cleanup() {
    SSHELF_HOME="$work/sshelf" HOME="$work/home" "$sshelf" warm stop >/dev/null 2>&1 || true
    ssh -o ControlPath="$work/mux" -O exit h >/dev/null 2>&1 || true
    [ -z "$sshd_pid" ] || kill "$sshd_pid" 2>/dev/null || true
    pkill -u "$user" 2>/dev/null || true
    userdel "$user" 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home" /run/sshd
chmod 711 "$work"
useradd --system --no-create-home --home-dir "$work/userhome" --shell /bin/sh "$user"
usermod -p '*' "$user"   # no password, but not locked: sshd without PAM refuses a locked account's keys
install -d -m 700 -o "$user" "$work/userhome"

ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/id_ed25519"
cp "$work/id_ed25519.pub" "$work/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
PidFile $work/sshd.pid
AuthorizedKeysFile $work/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PrintMotd no
UseDNS no
MaxSessions 64
CONF
/usr/sbin/sshd -D -f "$work/sshd_config" -E "$work/sshd.log" &
sshd_pid=$!
for _ in $(seq 200); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null && break
    sleep 0.05
done
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$work/host_key.pub")" > "$work/known_hosts"
printf 'Host h\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n' \
    "$port" "$user" "$work/id_ed25519" > "$work/ssh_config"
printf '  UserKnownHostsFile %s\n  BatchMode yes\n' "$work/known_hosts" >> "$work/ssh_config"
printf '  ControlMaster auto\n  ControlPath %s/mux\n  ControlPersist 600\n' "$work" >> "$work/ssh_config"
printf 'Host h\n  HostName 127.0.0.1\n  Port %s\n  User %s\n  IdentityFile %s\n' \
    "$port" "$user" "$work/id_ed25519" > "$work/sshelf_config"

export SSHELF_HOME="$work/sshelf" HOME="$work/home"
"$sshelf" import ssh-config "$work/sshelf_config" >/dev/null
"$sshelf" exec h --accept-new -n -- true
"$sshelf" exec h --persist --persist-for 600 -n -- true
keeper=""
for pid in $(pgrep -f ' warm serve '); do
    grep -qxz "SSHELF_HOME=$work/sshelf" "/proc/$pid/environ" 2>/dev/null && keeper=$pid
done
[ -n "$keeper" ] || { echo "no keeper found" >&2; exit 1; }
ssh -F "$work/ssh_config" h true </dev/null
master=$(ssh -F "$work/ssh_config" -O check h 2>&1 | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
[ -n "$master" ] || { echo "no ControlPersist master found" >&2; exit 1; }

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# "CPU WALL": ms of daemon $1's CPU per call, and ms of wall time per call, over CALLS runs of the rest of the line.
measure() {
    local pid=$1 before after start end
    shift
    before=$(cpu "$pid")
    start=$(date +%s%N)
    for _ in $(seq "$calls"); do "$@" </dev/null >/dev/null; done
    end=$(date +%s%N)
    after=$(cpu "$pid")
    awk -v d=$((after - before)) -v t="$ticks" -v n="$calls" -v w=$((end - start)) \
        'BEGIN { printf "%.3f %.2f\n", d * 1000 / t / n, w / 1e6 / n }'
}
median() {
    tr ' ' '\n' | sort -n \
        | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
keeper_ms=() master_ms=()
echo "sshelf: $sshelf; $calls calls a round, $rounds rounds (ms of the daemon's CPU per call; wall ms per call)"
for round in $(seq "$rounds"); do
    read -r keeper_cpu keeper_wall < <(measure "$keeper" "$sshelf" exec h ${EXEC_FLAGS:-} -- true)
    read -r master_cpu master_wall < <(measure "$master" ssh -F "$work/ssh_config" h true)
    keeper_ms+=("$keeper_cpu") master_ms+=("$master_cpu")
    echo "round $round: sshelf keeper $keeper_cpu ms (wall $keeper_wall)," \
        "OpenSSH master $master_cpu ms (wall $master_wall)"
done
echo "median: sshelf keeper $(echo "${keeper_ms[*]}" | median) ms, OpenSSH master $(echo "${master_ms[*]}" | median) ms"
