#include <sqlite3.h>
// glibc's heap statistics (mallinfo2), for the benchmark's heap watch; the Glibc module
// does not import this header.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
