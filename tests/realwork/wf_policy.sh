# SPDX-License-Identifier: MIT
# Writes the policy must refuse, and the reads and caches it must allow
# (sourced; see dsl.sh).

wf home-dotfile "append to ~/.bashrc (a file of the user's)" fast
home <<'EOF'
echo '# rc' > .bashrc
EOF
call <<'EOF'
echo 'alias ll="ls -l"' >> ~/.bashrc
EOF
deny home/.bashrc

wf home-config-dir "write ~/.config/tool/settings.json (the user's settings)"
call <<'EOF'
mkdir -p ~/.config/tool && echo '{}' > ~/.config/tool/settings.json
EOF
deny home/.config

wf xdg-cache "a tool's cache in XDG_CACHE_HOME (the tool cache, kept across calls)" fast
call <<'EOF'
dir=${XDG_CACHE_HOME:-$HOME/.cache}/rwtool && mkdir -p "$dir" && echo cached > "$dir/entry" && echo stored
EOF
call <<'EOF'
cat "${XDG_CACHE_HOME:-$HOME/.cache}/rwtool/entry"
EOF

wf outside-sibling "write a sibling of the root (outside the root)" fast
call <<'EOF'
echo x > "$HOME/../outside.txt"
EOF
deny outside.txt

wf protected-envrc "write .envrc and .vscode/settings.json (protected paths)" fast
call <<'EOF'
echo 'export X=1' > .envrc && mkdir -p .vscode && echo '{}' > .vscode/settings.json
EOF
deny ws/.envrc ws/.vscode

wf readonly-write "a build step in read-only mode writes the root" fast mode=read-only
call <<'EOF'
echo result > out.txt
EOF
deny ws/out.txt

wf readonly-tmp "read-only mode: /dev/null takes writes, /tmp does not" fast mode=read-only
call <<'EOF'
echo x > /dev/null && echo null-ok && mkdir -p "$RW" && echo kept > "$RW/x"
EOF
deny /tmp/rw-@TAG@

wf ssh-public "read ~/.ssh/known_hosts and the public key (kept readable)"
home <<'EOF'
mkdir -m 700 .ssh && echo 'secret' > .ssh/id_ed25519 && echo 'host key' > .ssh/known_hosts && echo pub > .ssh/id_ed25519.pub
EOF
call <<'EOF'
cat ~/.ssh/known_hosts ~/.ssh/id_ed25519.pub && ls ~/.ssh | grep -c pub
EOF

wf home-mkdir-bare "from inside \$HOME, a refused mkdir of a bare name ignored, then a write into it" fast
call <<'EOF'
cd ~ && mkdir -p newdir 2>/dev/null; echo data > newdir/file
EOF
deny home/newdir
