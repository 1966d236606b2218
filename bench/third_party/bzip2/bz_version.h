/* Generated from bz_version.h.in by hand for this vendored copy. */
#define BZ_VERSION "1.1.0"
