// SPDX-License-Identifier: MIT
// node's test runner; its TAP report on stdout quotes the error:
//   error: "EROFS: read-only file system, open '/p'"
"use strict";
const test = require("node:test");
test("writes the target", () => {
	require("fs").writeFileSync(process.env.TARGET, "x");
});
