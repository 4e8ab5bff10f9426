# SPDX-License-Identifier: MIT
# cmake -DDIR=PATH -P mkdir.cmake: "file problem creating directory: PATH",
# no system error text at all (issue 31).
file(MAKE_DIRECTORY "${DIR}")
