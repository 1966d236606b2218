# Installation (`cmake --install`, `make install PREFIX=...`) and the Debian package
# (`cpack -G DEB`): profkit and its helper programs, the runtime libraries, man pages
# generated from the commands' own --help tables, and the fleet merger.
# Everything lands relative to the prefix as in the build tree (bin/, lib/), because
# `profkit run` finds the runtime at ../lib/libprofkit_memprof.so beside bin/profkit.

find_program(PROFKIT_HELP2MAN help2man)
if(PROFKIT_HELP2MAN)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/profkit.1
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/make-man.sh $<TARGET_FILE:profkit> ${CMAKE_BINARY_DIR}/man
    DEPENDS profkit ${CMAKE_SOURCE_DIR}/scripts/make-man.sh
    COMMENT "Man pages from profkit --help")
  add_custom_target(man_pages ALL DEPENDS ${CMAKE_BINARY_DIR}/man/profkit.1)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION share/man/man1
          FILES_MATCHING PATTERN "*.1")
else()
  message(WARNING "help2man not found: no man pages (scripts/install-deps.sh installs it)")
endif()

install(TARGETS profkit RUNTIME DESTINATION bin)
if(TARGET profkit-branch-trace)
  install(TARGETS profkit-branch-trace RUNTIME DESTINATION bin)
endif()
if(TARGET profkit_memprof_shared)
  install(TARGETS profkit_memprof_shared profkit_memprof_static
          LIBRARY DESTINATION lib ARCHIVE DESTINATION lib)
  install(TARGETS profkit_memprof_preload LIBRARY DESTINATION lib/preload)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/profkit)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION share/doc/profkit/docs)

set(CPACK_PACKAGE_NAME profkit)
set(CPACK_PACKAGE_VERSION 0.1.0)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Heap profiling and PGO profile toolchain, compatible with LLVM's formats")
set(CPACK_PACKAGE_CONTACT "profkit developers <profkit@localhost>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Dependencies of the shared objects, from dpkg-shlibdeps (package dpkg-dev); the fleet
# merger needs Dask for /usr/bin/python3.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-distributed")
include(CPack)
