# SPDX-License-Identifier: MIT
# cmake -DOUT=PATH -P write.cmake: CMake reports a refused write with the
# reason first and the file on a line of its own after it (issue 31).
file(WRITE "${OUT}" "x\n")
