/* hdr.h: inline function shared by two C++ TUs (linkonce_odr) */
inline int shared_inl(int x) { return x % 5 ? x * 2 : x + 7; }
