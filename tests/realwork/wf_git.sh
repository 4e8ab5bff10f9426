# SPDX-License-Identifier: MIT
# git, as an agent uses it in a repository the user made (sourced; see dsl.sh).

# A repository with two commits, made by the user before the agent starts.
git_repo() {
	setup <<'EOF'
git init -q .
printf 'one\ntwo\nthree\n' > notes.txt
printf 'print("hi")\n' > main.py
git add -A && git commit -qm "first"
printf 'four\n' >> notes.txt
git commit -qam "second"
EOF
}

wf git-commit "git add, commit, log in the user's repository" fast need=git
git_repo
call <<'EOF'
echo five >> notes.txt && mkdir -p src && echo 'x = 1' > src/x.py
git add -A && git commit -qm "third" && git log --format='%h %an %s' && git status --short
EOF

wf git-init "git init, add, commit at the root (a repository the run makes is kept)" fast need=git
call <<'EOF'
git init -q . && echo a > a.txt && git add a.txt && git commit -qm init && git log --format=%s
EOF

wf git-clone-root "git clone of the user's local repository into the root, then work in it" fast need=git
home <<'EOF'
git init -q src && cd src && echo s > s.txt && git add s.txt && git commit -qm src
EOF
call <<'EOF'
git clone -q "$HOME/src" . && git switch -q -c topic && echo t > t.txt && git add t.txt &&
git commit -qm topic && git switch -q - && git merge -q --no-edit topic && git log --format=%s &&
git config --get remote.origin.url | sed "s|$HOME|HOME|"
EOF
# objects copied out of $HOME, not hard-linked: the home is another mount (namespace
# runner) or outside what Landlock grants
copied '^\.git/objects/'

wf git-init-sub "git init of a subdirectory of the root (a repository of its own)" need=git
call <<'EOF'
mkdir lib && cd lib && git init -q . && echo a > a.txt && git add a.txt && git commit -qm init &&
git log --format=%s && ls .git/hooks | head -n 3
EOF

wf git-branch-merge "branch, commit, switch, merge" need=git
git_repo
call <<'EOF'
git switch -q -c feature && echo feature > f.txt && git add f.txt && git commit -qm "feature" &&
git switch -q main && echo main >> notes.txt && git commit -qam "on main" &&
git merge -q --no-edit feature && git log --format='%s' --graph && git branch -a
EOF

wf git-stash "stash, switch, stash pop" need=git
git_repo
call <<'EOF'
echo wip >> notes.txt && git stash -q && git status --short && git stash list &&
git stash pop -q && git diff --stat
EOF

wf git-rebase "rebase a branch onto main, interactive-free" need=git
git_repo
call <<'EOF'
git switch -q -c topic HEAD~1 && echo t > t.txt && git add t.txt && git commit -qm topic &&
git rebase -q main && git log --format=%s && git switch -q main && git merge -q --ff-only topic
EOF

wf git-conflict "a merge conflict, resolved and committed" need=git
git_repo
call <<'EOF'
git switch -q -c other HEAD~1 && echo other >> notes.txt && git commit -qam other && git switch -q main
git merge other; echo "merge exit $?"; git diff --name-only --diff-filter=U
printf 'one\ntwo\nthree\nfour\nother\n' > notes.txt && git add notes.txt && git commit -qm merged &&
git log --oneline --format=%s | head -n 3
EOF

wf git-history "log, show, blame, grep, diff (read-only mode)" fast mode=read-only need=git
git_repo
call <<'EOF'
git log --stat --format='%h %s' && git show --stat HEAD && git blame notes.txt && git grep -n two &&
git diff HEAD~1 -- notes.txt && git rev-parse --show-toplevel && git status --short
EOF

wf git-tag-archive "tag, describe, archive, format-patch" need=git,tar
git_repo
call <<'EOF'
git tag -a v1.0 -m "release" HEAD~1 && git describe --tags && git archive -o rel.tar v1.0 &&
tar tf rel.tar && git format-patch -q -1 -o patches && ls patches
EOF

wf git-clone-local "clone a local repository, commit, push back" need=git
git_repo
call <<'EOF'
git clone -q --bare . origin.git &&
git clone -q origin.git work && cd work && echo c > c.txt && git add c.txt && git commit -qm c &&
git push -q origin HEAD:main && git -C ../origin.git log --format=%s main
EOF
norm 's|/[^ ]*/ws|WS|g'
copied '^(origin\.git|work/\.git)/objects/'

wf git-gc "gc, fsck, count-objects" need=git
git_repo
call <<'EOF'
git gc -q && git fsck --no-progress && git count-objects -v | grep -E '^(count|in-pack|packs)'
EOF

wf git-worktree "a worktree inside the root" need=git
git_repo
call <<'EOF'
git worktree add -q -b wt-branch wt && cd wt && echo w > w.txt && git add w.txt && git commit -qm wt &&
git -C .. worktree list --porcelain | grep -c worktree && git -C .. log --format=%s wt-branch | head -n 1
EOF
norm 's|/[^ ]*/ws|WS|g'

wf git-bisect "bisect run" need=git
git_repo
call <<'EOF'
git bisect start HEAD HEAD~1 >/dev/null && git bisect run sh -c '! grep -q four notes.txt' | grep 'is the first bad commit'
git bisect reset -q
EOF

wf git-config-local "git config of the repository (.git/config is protected)" need=git
git_repo
call <<'EOF'
git config core.autocrlf false && git config --get core.autocrlf
EOF
deny ws/.git/config

wf git-hook "write a git hook (.git/hooks is protected)" fast need=git
git_repo
call <<'EOF'
printf '#!/bin/sh\nexit 0\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
EOF
deny ws/.git/hooks

wf git-config-global "git config --global (the user's ~/.gitconfig)" fast need=git
git_repo
call <<'EOF'
git config --global alias.st status
EOF
deny home/.gitconfig

wf git-hook-nested "write a hook in a repository below the root (every repository's hooks are protected)" fast need=git
setup <<'EOF'
mkdir proj && cd proj && git init -q . && git commit -q --allow-empty -m init
EOF
call <<'EOF'
printf '#!/bin/sh\nexit 0\n' > proj/.git/hooks/pre-commit && chmod +x proj/.git/hooks/pre-commit
EOF
deny ws/proj/.git/hooks

wf git-rebase-planted "leave a rebase todo list in .git (only what git's everyday commands write is kept)" need=git
git_repo
call <<'EOF'
mkdir .git/rebase-merge && echo 'exec true' > .git/rebase-merge/git-rebase-todo
EOF
deny ws/.git/rebase-merge
