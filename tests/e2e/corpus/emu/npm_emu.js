#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Prints npm 6's error block for a failed write (npm is not installed with
// Debian's nodejs on CI machines, and npm 10 adds a strerror line; this is
// the older shape with none): the errno by name and number, the file on a
// line of its own. The write itself is real, done by node.
//
//   npm_emu.js PATH
"use strict";
const fs = require("fs");
const path = process.argv[2];
try {
	fs.writeFileSync(path, "{}\n");
} catch (e) {
	process.stderr.write(
		`npm ERR! code ${e.code}\n` +
		`npm ERR! syscall ${e.syscall}\n` +
		`npm ERR! path ${e.path}\n` +
		`npm ERR! errno ${e.errno}\n` +
		"npm ERR! \n" +
		"npm ERR! A complete log of this run can be found in:\n" +
		"npm ERR!     /tmp/npm-cache/_logs/2024-05-01T10_00_00_000Z-debug.log\n");
	process.exit(e.errno < 0 ? 256 + e.errno : 1);
}
