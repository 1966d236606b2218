// longname.cpp: function name longer than 127 bytes -> multi-byte ULEB name length
namespace a_very_long_namespace_name_for_testing { namespace another_quite_long_nested_namespace_name {
template <typename T> struct SomeRatherLongTemplateClassName {
  __attribute__((noinline)) static T compute_something_with_a_long_name(T v) { return v * 3; }
}; } }
int main(int argc, char **) {
  return a_very_long_namespace_name_for_testing::another_quite_long_nested_namespace_name::SomeRatherLongTemplateClassName<long>::compute_something_with_a_long_name(argc);
}
