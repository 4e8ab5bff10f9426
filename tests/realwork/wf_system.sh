# SPDX-License-Identifier: MIT
# What a command does with the system: sockets, locks, ptys, daemons, /tmp
# across calls, /dev/tty, /proc/self, nested namespaces (sourced; see dsl.sh).

wf tcp-local "a TCP server on 127.0.0.1 and a client, in one command" need=python3
call <<'EOF'
python3 - <<'PY'
import socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
def serve():
    c, _ = srv.accept(); c.sendall(c.recv(64).upper()); c.close()
threading.Thread(target=serve).start()
cl = socket.create_connection(srv.getsockname()); cl.sendall(b"ping"); print(cl.recv(64).decode())
PY
EOF

wf http-daemon "python -m http.server in the background, curl it, stop it" fast need=python3,curl
setup <<'EOF'
echo served > index.txt
EOF
call <<'EOF'
: > srv.log; python3 -u -m http.server 0 --bind 127.0.0.1 > srv.log 2>&1 & pid=$!
for i in $(seq 1 100); do port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' srv.log); [ -n "$port" ] && break; sleep 0.1; done
curl -s "http://127.0.0.1:$port/index.txt"; kill $pid; wait $pid 2>/dev/null; echo stopped
EOF
volatile '^srv\.log$'

wf unix-socket-ws "a unix socket server in the workspace and a client" fast need=python3
call <<'EOF'
python3 - <<'PY'
import socket, os, threading
path = "app.sock"
srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)
def serve():
    c, _ = srv.accept(); c.sendall(b"via " + c.recv(64)); c.close()
threading.Thread(target=serve).start()
cl = socket.socket(socket.AF_UNIX); cl.connect(path); cl.sendall(b"unix"); print(cl.recv(64).decode())
os.unlink(path)
PY
EOF

wf unix-socket-tmp "a unix socket daemon in /tmp (socat), started and stopped in the command" fast need=socat
call <<'EOF'
mkdir -p "$RW" && socat UNIX-LISTEN:"$RW/d.sock",fork EXEC:'tr a-z A-Z' & pid=$!
for i in $(seq 1 100); do [ -S "$RW/d.sock" ] && break; sleep 0.1; done
echo hello | socat - UNIX-CONNECT:"$RW/d.sock"; kill $pid; wait $pid 2>/dev/null; rm -rf "$RW"; echo done
EOF

wf ssh-agent "ssh-agent started and stopped in the command (socket in /tmp)" fast need=ssh-agent,ssh-add
call <<'EOF'
eval "$(ssh-agent -s)" >/dev/null && ssh-add -l; echo "ssh-add: $?"; ssh-agent -k >/dev/null && echo killed
EOF
known 'runner=landlock,kernel<6.16' "ssh-agent makes itself non-dumpable after it listened and forked: before Linux 6.16 the kernel cannot name its dead listener (SO_PEERPIDFD), and the landlock runner's supervisor, with no more privilege than the command, cannot find the socket among its fds (docs/supervisor.md), so ssh-add is refused (EACCES; the call still exits 0, so nothing is marked)"

wf flock "flock on a lock file in the root and in /tmp, fcntl locks from python" fast need=flock,python3
call <<'EOF'
flock build.lock -c 'echo holding' && mkdir -p "$RW" && flock -n "$RW/l" -c 'flock -n -x "$RW/l" true || echo "second holder refused"' &&
python3 -c 'import fcntl; f = open("data.lock", "w"); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print("lockf ok")'; rm -rf "$RW"
EOF

wf tmp-across-calls "a file written to /tmp in one call is there in the next" fast
call <<'EOF'
mkdir -p "$RW" && echo kept > "$RW/state" && echo written
EOF
call <<'EOF'
cat "$RW/state" && rm -rf "$RW"
EOF

wf dev-tty "open /dev/tty with no terminal: ENXIO, the truth" fast
call <<'EOF'
echo hi > /dev/tty
EOF

wf tty-checks "tty, test -t, stty without a terminal"
call <<'EOF'
tty; echo "tty: $?"; [ -t 0 ] && echo term || echo "no term"; stty -a 2>&1 | head -n 1; true
EOF

wf pty-script "script(1) runs a command on a new pty" fast need=script
call <<'EOF'
script -qec 'tty | sed "s/[0-9]*$/N/"; echo in-pty' /dev/null | tr -d '\r'
EOF

wf pty-python "python pty.openpty and pty.spawn" fast need=python3
call <<'EOF'
python3 - <<'PY'
import os, pty
m, s = pty.openpty(); os.write(s, b"through the pty\n"); print(os.read(m, 100).decode().strip())
pid, fd = pty.fork()
if pid == 0:
    os.execvp("sh", ["sh", "-c", "echo child on $(tty | sed 's/[0-9]*$/N/')"])
out = b""
while True:
    try:
        b = os.read(fd, 100)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0); print(out.decode().strip())
PY
EOF

wf expect "expect drives an interactive program" need=expect
call <<'EOF'
expect -c 'log_user 0; spawn sh -c {read -p "name? " n; echo "hi $n"}; expect "name? "; send "rw\r"; expect -re "hi (\\w+)"; puts $expect_out(1,string)'
EOF

wf bg-jobs "background jobs, wait, kill, nohup, setsid, a double-forked daemon with a pidfile" fast
call <<'EOF'
sleep 30 & p1=$!; nohup sleep 30 > /dev/null 2>&1 & p2=$!
(setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' &) ; for i in $(seq 1 50); do [ -s daemon.pid ] && break; sleep 0.1; done
kill $p1 $p2 "$(cat daemon.pid)"; wait $p1 $p2; echo "waited $?"; rm daemon.pid
( exit 3 ) & wait $!; echo "status $?"
EOF

wf timeout-signal "timeout(1), a trapped signal, kill of its own process group"
call <<'EOF'
timeout 0.5 sleep 10; echo "timeout: $?"; sh -c 'trap "echo trapped; exit 5" TERM; kill -TERM $$; sleep 1'; echo "sh: $?"
EOF

wf proc-self "write /proc/self: comm, oom_score_adj, a thread name from C" fast need=cc
setup <<'EOF'
cat > tn.c <<'C'
#include <pthread.h>
#include <stdio.h>
int main(void) {
	char name[16] = "";
	int rc = pthread_setname_np(pthread_self(), "rw-worker");
	pthread_getname_np(pthread_self(), name, sizeof name);
	printf("setname %d %s\n", rc, name);
	return rc;
}
C
EOF
call <<'EOF'
cc -pthread -o tn tn.c && echo built
EOF
call <<'EOF'
echo renamed > /proc/self/comm; echo "comm: $?"; echo 500 > /proc/self/oom_score_adj && cat /proc/self/oom_score_adj && ./tn
EOF
refuse runner=landlock "a write to /proc/self: under the landlock runner /proc is the host's, outside the root; Landlock cannot grant a process its own /proc/self without every other process's (docs/workspace.md), so it is refused (EACCES) like any write outside the root, and marked"

wf unshare-user "unshare -Ur: a nested user namespace (nested sandboxes)" fast need=unshare
call <<'EOF'
unshare -Ur sh -c 'id -u; cat /proc/self/uid_map | wc -l'
EOF
refuse runner=landlock "a new user namespace: the landlock runner's filter refuses it (the overlay workdir attack, docs/security.md)"
refuse 'runner=namespace,root' "a root caller's nested user namespace: mapping root in it needs CAP_SETFCAP, which would let it write file capabilities valid on the host (docs/workspace.md), so the filter refuses it"

wf bwrap-nested "bubblewrap (no setuid) inside the command" need=bwrap
call <<'EOF'
bwrap --ro-bind / / --dev /dev --tmpfs /tmp --unshare-pid true && echo nested-ok
EOF
refuse runner=landlock "bwrap's user namespace: the landlock runner's filter refuses it (docs/security.md)"
refuse 'runner=namespace,root' "a root caller's bwrap: no capability to make namespaces as root, none to map root in a user namespace (as unshare-user)"

wf ps-own "ps and pgrep see the command's own processes" need=ps,pgrep
call <<'EOF'
# the child is bash until it has exec'd sleep: wait for that, on both sides
sleep 30 & p=$!; for i in $(seq 100); do [ "$(ps -o comm= -p $p)" = sleep ] && break; sleep 0.05; done
ps -o comm= -p $p; pgrep -x sleep >/dev/null && echo found; kill $p
EOF

# The user's own agent, outside the root, reached through SSH_AUTH_SOCK.
host_agent() {
	home <<'EOF2'
ssh-agent -D -a "$HOME/agent.sock" >/dev/null 2>&1 &
for i in $(seq 1 100); do [ -S "$HOME/agent.sock" ] && break; sleep 0.1; done
EOF2
}

wf host-agent-allowed "the user's ssh-agent outside the root, allow-listed in unix_sockets" fast need=ssh-agent,ssh-add
host_agent
config 'unix_sockets = @HOME@/agent.sock'
call <<'EOF'
SSH_AUTH_SOCK=$HOME/agent.sock ssh-add -l; echo "ssh-add: $?"
EOF

wf host-agent-refused "the user's ssh-agent outside the root, not allow-listed: refused" fast need=ssh-agent,ssh-add
host_agent
call <<'EOF'
SSH_AUTH_SOCK=$HOME/agent.sock ssh-add -l; [ $? -ne 2 ] # 1: no identities; 2: no agent
EOF
refuse '*' "a connect to the user's agent, which is not allow-listed"
