# Shared compile settings and helpers for profkit targets.

set(PROFKIT_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
# clang 22 marks libstdc++ 12's std::get_temporary_buffer deprecated, which std::stable_sort
# uses internally; stable sorts are needed to reproduce LLVM's output order, so that one
# header-internal deprecation is not an error.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  list(APPEND PROFKIT_WARNINGS -Wno-deprecated-declarations)
endif()
if(PROFKIT_WERROR)
  list(APPEND PROFKIT_WARNINGS -Werror)
endif()

# Flags for everything except the runtime (which has its own, see runtime/).
set(PROFKIT_SAN_FLAGS "")
if(PROFKIT_SANITIZE)
  set(PROFKIT_SAN_FLAGS -fsanitize=${PROFKIT_SANITIZE} -fno-sanitize-recover=all
                        -fno-omit-frame-pointer)
endif()

# In fuzz builds every library is compiled with libFuzzer's coverage instrumentation, not
# only the fuzz targets' own files: otherwise the fuzzer sees almost no edges of the parsers.
if(PROFKIT_FUZZ)
  list(APPEND PROFKIT_SAN_COMPILE_ONLY -fsanitize=fuzzer-no-link)
endif()

# profkit_target_defaults(TARGET): warnings and sanitizers for a tool, library or test.
function(profkit_target_defaults target)
  target_compile_options(${target} PRIVATE ${PROFKIT_WARNINGS} ${PROFKIT_SAN_FLAGS}
                                           ${PROFKIT_SAN_COMPILE_ONLY})
  target_link_options(${target} PRIVATE ${PROFKIT_SAN_FLAGS})
endfunction()

# profkit_library(NAME DIR [DEPS ...]): a static library from every .cc under DIR except
# tests (_test.cc), fuzz targets (_fuzz.cc) and benchmarks (_bench.cc); its tests become
# one GoogleTest binary NAME_tests registered with CTest.
function(profkit_library name dir)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB_RECURSE all_sources CONFIGURE_DEPENDS ${dir}/*.cc)
  set(sources "")
  set(tests "")
  foreach(src ${all_sources})
    if(src MATCHES "_test\\.cc$")
      list(APPEND tests ${src})
    elseif(src MATCHES "_(fuzz|bench)\\.cc$")
    else()
      list(APPEND sources ${src})
    endif()
  endforeach()
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  profkit_target_defaults(${name})
  if(tests)
    add_executable(${name}_tests ${tests})
    target_link_libraries(${name}_tests PRIVATE ${name} ${ARG_TEST_DEPS} GTest::gtest GTest::gtest_main)
    target_compile_definitions(${name}_tests PRIVATE
      PROFKIT_SOURCE_DIR="${CMAKE_SOURCE_DIR}" PROFKIT_BINARY_DIR="${CMAKE_BINARY_DIR}")
    profkit_target_defaults(${name}_tests)
    gtest_discover_tests(${name}_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
  endif()
endfunction()
