/* SPDX-License-Identifier: MIT */
/* The system's files for the classifier's catalog search. */
#ifndef SBX_CATALOG_FILES_H
#define SBX_CATALOG_FILES_H

#include "locale_catalog.h"

extern const struct catalog_reader catalog_files;

#endif
