#ifndef LOGBOOK_CLZ4_SHIM_H
#define LOGBOOK_CLZ4_SHIM_H
// liblz4 from the system (Debian: liblz4-dev). The block API compresses batch payloads, the
// frame API lets a segment double as an LZ4 stream, and HC is there for compacted output.
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#endif
