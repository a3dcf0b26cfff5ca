// SPDX-License-Identifier: GPL-2.0
#include "pfprof.h"

const char pfprof_version[] = PFPROF_VERSION;
