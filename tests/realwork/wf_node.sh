# SPDX-License-Identifier: MIT
# node and npm: scripts, a package packed and installed here, npx, npm test,
# one small install from the registry (sourced; see dsl.sh).

node_lib() {
	setup <<'EOF'
mkdir -p lib/bin
cat > lib/package.json <<'JS'
{ "name": "padrw", "version": "1.0.0", "main": "index.js", "bin": { "padrw": "bin/padrw.js" } }
JS
printf 'module.exports = (s, n) => String(s).padStart(n, "0");\n' > lib/index.js
printf '#!/usr/bin/env node\nconsole.log(require("../index.js")(process.argv[2] || "7", 3));\n' > lib/bin/padrw.js
chmod +x lib/bin/padrw.js
mkdir app
cat > app/package.json <<'JS'
{ "name": "app", "version": "0.0.1", "private": true,
  "scripts": { "test": "node --test", "start": "node main.js" } }
JS
printf 'const pad = require("padrw");\nconsole.log(pad(42, 5));\n' > app/main.js
cat > app/main.test.js <<'JS'
const test = require("node:test");
const assert = require("node:assert");
test("pads", () => assert.strictEqual(require("padrw")(1, 2), "01"));
JS
EOF
}

wf node-script "node: fs, child_process, worker_threads, os.tmpdir" fast need=node
call <<'EOF'
node - <<'JS'
const fs = require("fs"), os = require("os"), path = require("path");
const { execFileSync } = require("child_process");
const { Worker } = require("worker_threads");
fs.mkdirSync("out/deep", { recursive: true });
fs.writeFileSync("out/deep/a.txt", "hello\n");
fs.renameSync("out/deep/a.txt", "out/b.txt");
const t = fs.mkdtempSync(path.join(os.tmpdir(), "rw-"));
fs.writeFileSync(path.join(t, "x"), "x"); fs.rmSync(t, { recursive: true });
console.log(execFileSync("sh", ["-c", "cat out/b.txt"]).toString().trim());
new Worker("require('worker_threads').parentPort.postMessage(6 * 7)", { eval: true })
  .on("message", (m) => console.log("worker", m));
JS
EOF

wf npm-local "npm pack a package, npm install the tarball (npm's cache), npx its bin, npm test" fast need=npm,node
node_lib
call <<'EOF'
cd lib && npm pack --silent && cd ../app && npm install --silent ../lib/padrw-1.0.0.tgz && npm start --silent &&
npx --no-install padrw 5 && npm test --silent 2>&1 | grep -E '^# (pass|fail)'
EOF
volatile '^app/package-lock\.json$'

wf npm-link-run "npm run with a local dependency (file:), npm ls" need=npm,node
node_lib
call <<'EOF'
cd app && npm install --silent --install-links=false ../lib && npm ls --depth=0 | tail -n +2 | sed 's/ -> .*//' && npm start --silent
EOF
volatile '^app/package-lock\.json$'

wf npm-registry "npm install one small package from the registry" need=npm,node
call <<'EOF'
npm init -y >/dev/null && npm install --silent is-number@7.0.0 &&
node -e 'console.log(require("is-number")(5))' && npm ls --depth=0 | tail -n +2
EOF
volatile '^package-lock\.json$'

wf npm-config-set "npm config set (the user's ~/.npmrc)" need=npm
call <<'EOF'
npm config set fund false
EOF
deny home/.npmrc
