# SPDX-License-Identifier: MIT
# Python: venv + pip of a package built here (no index), pytest, linters,
# multiprocessing, shared memory (sourced; see dsl.sh).

# A tiny package with a console script, as a source tree in pkg/.
py_package() {
	setup <<'EOF'
mkdir -p pkg/tinyrw
printf 'def twice(x):\n    return 2 * x\n\ndef main():\n    print("tinyrw", twice(21))\n' > pkg/tinyrw/__init__.py
cat > pkg/setup.py <<'PY'
from setuptools import setup
setup(name="tinyrw", version="1.0", packages=["tinyrw"],
      entry_points={"console_scripts": ["tinyrw = tinyrw:main"]})
PY
EOF
}

py_tests() {
	setup <<'EOF'
mkdir -p tests
printf 'def add(a, b):\n    return a + b\n' > calc.py
cat > tests/test_calc.py <<'PY'
import sys, os
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from calc import add

def test_add():
    assert add(2, 2) == 4

def test_tmp(tmp_path):
    (tmp_path / "f").write_text("x")
    assert (tmp_path / "f").read_text() == "x"

def test_fails():
    assert add(1, 1) == 3
PY
EOF
}

wf python-script "python writes files, uses tempfile and sqlite3" fast need=python3
call <<'EOF'
python3 - <<'PY'
import json, sqlite3, tempfile, os
os.makedirs("out", exist_ok=True)
with open("out/data.json", "w") as f:
    json.dump({"a": 1}, f)
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "x"), "w").write("tmp")
    print("tempdir under /tmp:", d.startswith("/tmp/"))
db = sqlite3.connect("out/db.sqlite")
db.execute("create table t (x)"); db.execute("insert into t values (42)"); db.commit()
print(db.execute("select x from t").fetchone()[0])
PY
EOF

wf pytest "pytest with tmp_path and a failing test, twice (cache across calls)" fast need=pytest
py_tests
call <<'EOF'
pytest -q -p no:randomly 2>&1 | sed 's/ in [0-9.]*s//'
EOF
call <<'EOF'
pytest -q --lf 2>&1 | sed 's/ in [0-9.]*s//'
EOF

wf venv-pip-wheel "venv, build a wheel here, pip install it, run its script" need=python3,pip
py_package
call <<'EOF'
python3 -m venv --system-site-packages .venv && . .venv/bin/activate &&
pip wheel -q --no-deps --no-build-isolation -w dist ./pkg 2>&1 | grep -v WARNING; ls dist &&
pip install -q --no-index dist/tinyrw-1.0-py3-none-any.whl && tinyrw && pip list 2>/dev/null | grep tinyrw
EOF
volatile '^pkg/build/|^pkg/.*egg-info/|^\.venv/'

wf pip-sdist "pip install of a local sdist (pip builds it: its cache)" need=python3,pip
py_package
call <<'EOF'
cd pkg && python3 setup.py -q sdist 2>/dev/null && cd .. && python3 -m venv --system-site-packages .venv &&
.venv/bin/pip install -q --no-index --no-build-isolation pkg/dist/tinyrw-1.0.tar.gz && .venv/bin/tinyrw
EOF
volatile '^pkg/|^\.venv/'

wf pip-user "pip install --user (the user's ~/.local)" need=python3,pip
py_package
call <<'EOF'
pip install -q --user --break-system-packages --no-index --no-build-isolation ./pkg
EOF
deny home/.local
volatile '^pkg/'

wf venv-plain "python -m venv with pip (ensurepip), pip list" need=python3
call <<'EOF'
python3 -m venv env && env/bin/python -c 'import sys; print(sys.prefix != sys.base_prefix)' && env/bin/pip --version | cut -d' ' -f1,2
EOF
volatile '^env/'

wf black "black --check, then black formats a file" need=black
setup <<'EOF'
printf 'x = {  "a":1,"b" : 2 }\ndef f( a ):\n  return a\n' > messy.py
EOF
call <<'EOF'
black --check messy.py; echo "check: $?"; black -q messy.py && cat messy.py
EOF

wf pylint "pylint (its stats in XDG_CACHE_HOME)" need=pylint
setup <<'EOF'
printf '"""Doc."""\n\n\ndef add(first, second):\n    """Add."""\n    return first + second\n' > good.py
EOF
call <<'EOF'
pylint --score=n good.py && echo clean
EOF

wf mypy "mypy with its cache in the root" need=mypy
setup <<'EOF'
printf 'def add(a: int, b: int) -> int:\n    return a + b\n\nadd(1, "2")\n' > typed.py
EOF
call <<'EOF'
mypy typed.py; echo "mypy: $?"
EOF
volatile '^\.mypy_cache/'

wf multiprocessing "multiprocessing Pool, Queue, ProcessPoolExecutor, a Manager" fast need=python3
call <<'EOF'
python3 - <<'PY'
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
def sq(x): return x * x
if __name__ == "__main__":
    with mp.Pool(2) as p: print(p.map(sq, range(5)))
    q = mp.Queue(); q.put("queued"); print(q.get())
    with ProcessPoolExecutor(2) as ex: print(list(ex.map(sq, [6, 7])))
    with mp.Manager() as m:
        d = m.dict(); d["k"] = 1; print(dict(d))
    lock = mp.Lock()
    with lock: print("locked")
PY
EOF

wf shared-memory "multiprocessing.shared_memory and a file in /dev/shm" fast need=python3
call <<'EOF'
python3 - <<'PY'
from multiprocessing import shared_memory
s = shared_memory.SharedMemory(create=True, size=16)
s.buf[:5] = b"hello"
t = shared_memory.SharedMemory(name=s.name)
print(bytes(t.buf[:5]).decode())
t.close(); s.close(); s.unlink()
PY
echo data > /dev/shm/rw-$$ && cat /dev/shm/rw-$$ && rm /dev/shm/rw-$$
EOF
