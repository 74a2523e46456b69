//===- CompilerVersion.cpp - the version kernel keys carry ---------------===//
//
// Alone in its file: the generated header changes with every commit, and
// only this file rebuilds then.
//
//===----------------------------------------------------------------------===//

#include "lib/CAPI/KernelCache.h"

#include "lib/CAPI/CompilerVersion.h"

const char *tilec::compilerVersion() { return TILEC_COMPILER_VERSION; }
