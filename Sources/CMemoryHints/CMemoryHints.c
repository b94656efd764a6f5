// The hints are static inline functions in the header; this file gives the target a source.
#include "CMemoryHints.h"
