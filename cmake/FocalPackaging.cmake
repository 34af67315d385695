# Debian packages of a Linux build: `cpack -G DEB` in build/<preset> (host: amd64, aarch64:
# arm64, armhf: armhf) writes three, one per install component (cmake/FocalInstall.cmake):
#   focal_<v>_<arch>.deb               cli: bin/focal
#   libfocal-engine0_<v>_<arch>.deb    lib: lib/libfocal_engine.so.0 (and .so.<v>)
#   libfocal-dev_<v>_<arch>.deb        dev: include/focal/, the static libraries, the
#                                      libfocal_engine.so link, lib/cmake/focal/, focal.pc,
#                                      the firmware helpers and toolchain files
# installed under /usr. Dependencies are named here, not found by dpkg-shlibdeps, which
# cannot read a cross build's binaries.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME focal)
set(CPACK_PACKAGE_VENDOR focal)
set(CPACK_PACKAGE_CONTACT "focal maintainers <focal@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Allocation-free inference engine for attention models")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli lib dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_STRIP_FILES TRUE)  # with the toolchain's strip (CMAKE_STRIP) in cross builds

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
endif()

set(focal_cxx_runtime "libc6, libstdc++6, libgcc-s1")
set(CPACK_DEBIAN_CLI_PACKAGE_NAME focal)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_CLI_DESCRIPTION "focal command-line tool: inspect, verify, run, plan, generate and bench .focal models")
set(CPACK_DEBIAN_LIB_PACKAGE_NAME libfocal-engine${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIB_PACKAGE_DEPENDS "${focal_cxx_runtime}")
set(CPACK_COMPONENT_LIB_DESCRIPTION "focal inference engine (shared library)")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libfocal-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libfocal-engine${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION "focal development files: headers, static libraries, CMake package, pkg-config file")
if(CMAKE_CROSSCOMPILING)
  # Cross builds have no `focal convert` (checkpoint readers) and no PNG heatmaps.
  set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${focal_cxx_runtime}")
else()
  # The host tool also converts (libzip, HDF5) and draws PNG heatmaps (libpng); the
  # development package's converter library links the same libraries.
  set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "${focal_cxx_runtime}, libzip4, libhdf5-103-1, libpng16-16, libprotobuf-lite32")
  string(APPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
         ", libzip-dev, libhdf5-dev, libprotobuf-dev, nlohmann-json3-dev, libflatbuffers-dev")
endif()

# Apache-2.0 (LICENSE): each package carries /usr/share/doc/<package>/copyright in
# Debian's machine-readable form, pointing at the system's copy of the licence text.
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
foreach(component cli lib dev)
  string(TOUPPER ${component} upper)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${upper}_PACKAGE_NAME} COMPONENT ${component})
endforeach()

include(CPack)
