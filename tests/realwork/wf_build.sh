# SPDX-License-Identifier: MIT
# Builds: make, cmake, ccache, gcc, cargo, go (sourced; see dsl.sh).

c_project() {
	setup <<'EOF'
mkdir -p src
cat > src/main.c <<'C'
#include <stdio.h>
int twice(int x);
int main(void) { printf("%d\n", twice(21)); return 0; }
C
printf 'int twice(int x) { return 2 * x; }\n' > src/twice.c
cat > Makefile <<'MK'
CC ?= cc
OBJ := build/main.o build/twice.o
all: build/app
build/%.o: src/%.c | build
	$(CC) -O2 -c -o $@ $<
build/app: $(OBJ)
	$(CC) -o $@ $(OBJ)
build:
	mkdir -p build
install: build/app
	install -D -m 755 build/app $(DESTDIR)$(PREFIX)/bin/app
clean:
	rm -rf build
.PHONY: all install clean
MK
EOF
}

wf make "make, run, make install into the root, make clean, make -j2" fast need=make,cc
c_project
call <<'EOF'
make && ./build/app && make install PREFIX="$PWD/inst" && ls -l inst/bin | wc -l && make clean && make -j2 -s && ./build/app
EOF

wf make-dry "make -n and reading the tree (read-only mode)" mode=read-only need=make
c_project
call <<'EOF'
make -n && grep -rn twice src | sort && wc -l src/*.c
EOF

wf make-readonly-build "make in read-only mode: the build's writes are refused" fast mode=read-only need=make,cc
c_project
call <<'EOF'
make
EOF
deny ws/build

wf gcc-tmp "gcc -o /tmp/..., run it, temp files of the compiler (-save-temps)" need=cc
c_project
call <<'EOF'
mkdir -p "$RW" && cc -o "$RW/app" src/*.c && "$RW/app" && cc -save-temps -c src/twice.c -o twice.o &&
ls twice.* | sort && rm -rf "$RW"
EOF

wf cmake "cmake configure, build, ctest" need=cmake,make,cc
setup <<'EOF'
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(demo C)
enable_testing()
add_executable(demo main.c)
add_test(NAME runs COMMAND demo)
CM
printf '#include <stdio.h>\nint main(void) { puts("demo"); return 0; }\n' > main.c
EOF
call <<'EOF'
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -- -s >/dev/null && ./build/demo &&
cd build && ctest 2>&1 | grep -E 'tests passed|Passed' | sed 's/ *[0-9.]* sec//'
EOF
# CMake's own bookkeeping carries times and absolute paths
volatile '^build/'

wf ccache "ccache gcc twice across two calls: a cache hit the second time" fast need=ccache,make,cc
c_project
call <<'EOF'
make CC="ccache cc" -s && ./build/app && ccache -s | grep -E '^(Hits|Misses)' | sed 's/ *[(].*//'
EOF
call <<'EOF'
make clean -s && make CC="ccache cc" -s && ./build/app && ccache -s | grep -E '^(Hits|Misses|  Direct)' | sed 's/ *[(].*//'
EOF

wf cargo "cargo new, build, test, run" need=cargo
call <<'EOF'
cargo new -q --vcs none hello && cd hello &&
printf '#[cfg(test)]\nmod t { #[test] fn ok() { assert_eq!(2 + 2, 4); } }\n' >> src/main.rs &&
cargo build -q && cargo test -q 2>&1 | grep -E '^test result' | sed 's/finished in .*//' && cargo run -q
EOF
volatile '^hello/target/'
scratch '^hello/target/debug/incremental/'

wf rust-config-dir "a Rust program's create_dir_all(~/.config/..).unwrap(): its panic names no path" need=rustc
call <<'EOF'
cat > t.rs <<'RS'
fn main() {
    let dir = std::env::var("HOME").unwrap() + "/.config/rwtool-rs/db";
    std::fs::create_dir_all(&dir).unwrap();
    println!("made");
}
RS
rustc -o t t.rs && ./t
EOF
deny home/.config
volatile '^t$'

wf go "go mod init, build, test, vet (GOCACHE in the tool cache)" need=go
setup <<'EOF'
cat > main.go <<'GO'
package main

import "fmt"

func twice(x int) int { return 2 * x }

func main() { fmt.Println(twice(21)) }
GO
cat > main_test.go <<'GO'
package main

import "testing"

func TestTwice(t *testing.T) {
	if twice(2) != 4 {
		t.Fatal("twice")
	}
}
GO
EOF
call <<'EOF'
go mod init example.com/demo 2>&1 && go build -o demo . && ./demo && go vet ./... && go test -count=1 ./... | sed 's/\t[0-9.]*s$//'
EOF

wf go-env-w "go env -w (the user's ~/.config/go/env)" need=go
call <<'EOF'
go env -w GOFLAGS=-mod=mod
EOF
deny home/.config/go
