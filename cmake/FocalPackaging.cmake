# Debian packages of a Linux build: `cpack -G DEB` in build/<preset> (host: amd64, aarch64:
# arm64, armhf: armhf) writes one per install component (cmake/FocalInstall.cmake):
#   focal_<v>_<arch>.deb                    cli: bin/focal and its manual page
#   libfocal-engine0_<v>_<arch>.deb         lib: lib/<triplet>/libfocal_engine.so.0 (and .so.<v>)
#   libfocal-dev_<v>_<arch>.deb             dev: include/focal/ (engine), the engine's static
#                                           libraries, the libfocal_engine.so link,
#                                           lib/<triplet>/cmake/focal/ (the engine component),
#                                           focal-engine.pc and focal.pc, the firmware helpers
#                                           and toolchain files
#   libfocal-converter-dev_<v>_<arch>.deb   converter-dev (host builds): `focal convert` as a
#                                           static library, its headers, the CMake component
#                                           converter, focal-converter.pc
# installed under /usr, each with /usr/share/doc/<package>/{copyright,changelog.gz}.
# The Depends of binaries (focal, libfocal-engine0) are computed by dpkg-shlibdeps from
# the libraries they link, with the versions their symbols need; the -dev packages name
# theirs (headers and static libraries are not binaries dpkg-shlibdeps reads). Cross builds
# ask dpkg-shlibdeps about the target architecture (DEB_HOST_ARCH, cmake/FocalCpackProject.cmake.in):
# it reads the target's libc6/libstdc++6 shlibs files from the multiarch :arm64/:armhf
# packages (scripts/bootstrap cross_packages). `lintian` checks them (scripts/check-packages);
# what it reports and is kept is justified in cmake/lintian/<package>.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME focal)
set(CPACK_PACKAGE_VENDOR focal)
set(CPACK_PACKAGE_CONTACT "focal maintainers <maintainers@focal.invalid>")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it in front of every package's
# own synopsis (the first line of CPACK_COMPONENT_<COMPONENT>_DESCRIPTION, below).
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli lib dev)
if(TARGET focal_convert)
  list(APPEND CPACK_COMPONENTS_ALL converter-dev)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_STRIP_FILES TRUE)  # with the toolchain's strip (CMAKE_STRIP) in cross builds
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The shlibs file of libfocal-engine0 ("libfocal_engine 0 libfocal-engine0 (>= <v>)"), so
# dpkg-shlibdeps of programs that link it names the package. Not per component in CMake
# 3.25, but only that package holds a shared library.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
endif()
set(FOCAL_DEB_ARCH ${CPACK_DEBIAN_PACKAGE_ARCHITECTURE})
set(FOCAL_DEB_SOVERSION ${PROJECT_VERSION_MAJOR})
set(focal_engine_package libfocal-engine${FOCAL_DEB_SOVERSION})

# Each component: its package name, section and description (a synopsis line, then the
# extended description).
set(CPACK_DEBIAN_CLI_PACKAGE_NAME focal)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_CLI_DESCRIPTION "inference engine for attention models (command-line tool)
The focal tool inspects, verifies, plans, runs, benchmarks and generates text
with .focal models (transformer encoders and decoders, RNN classifiers and
sequence-to-sequence models). On amd64 it also converts checkpoints
(safetensors, PyTorch, Keras) into .focal files.")

if(NOT CMAKE_CROSSCOMPILING)
  # The PNG heatmaps' text is drawn in DejaVu Sans (FOCAL_HEATMAP_FONT); without it only
  # `focal attention --png` fails, with a message naming the package.
  set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS fonts-dejavu-core)
endif()

set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${focal_engine_package})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIB_DESCRIPTION "inference engine for attention models (shared library)
focal runs transformer and recurrent models from memory-mapped .focal files
without allocating memory during inference. This package holds the shared
engine library that programs built against libfocal-dev use.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libfocal-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${focal_engine_package} (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION "inference engine for attention models (development files)
Headers, static libraries, the CMake package (find_package(focal COMPONENTS
engine)) and pkg-config files (focal, focal-engine) of the focal engine, its C
API and Linux runtime, with the helpers that build Cortex-M firmware.")

set(CPACK_DEBIAN_CONVERTER-DEV_PACKAGE_NAME libfocal-converter-dev)
set(CPACK_DEBIAN_CONVERTER-DEV_PACKAGE_SECTION libdevel)
# The converter's headers include nlohmann's and FlatBuffers'; its static libraries link
# libzip, HDF5 and protobuf-lite.
set(CPACK_DEBIAN_CONVERTER-DEV_PACKAGE_DEPENDS "libfocal-dev (= ${PROJECT_VERSION}), nlohmann-json3-dev, libflatbuffers-dev, libzip-dev, libhdf5-dev, libprotobuf-dev")
set(CPACK_COMPONENT_CONVERTER-DEV_DESCRIPTION "inference engine for attention models (converter library)
The focal converter as a static C++ library: it reads checkpoints (safetensors,
PyTorch, Keras HDF5) and tokenizers and writes .focal model files. Used
through find_package(focal COMPONENTS converter) or pkg-config focal-converter.")

# Cross builds: dpkg-shlibdeps runs with the target's DEB_HOST_ARCH (cpack reads this file
# when it runs).
configure_file(${PROJECT_SOURCE_DIR}/cmake/FocalCpackProject.cmake.in ${PROJECT_BINARY_DIR}/FocalCpackProject.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/FocalCpackProject.cmake)

# The library package: dpkg's ldconfig trigger, not CPack's postinst and postrm that call
# ldconfig (lintian: maintscript-calls-ldconfig). CPack writes those scripts unless the
# control files name a postinst and a postrm; naming files that do not exist keeps them out.
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/cmake/debian/triggers
    ${PROJECT_BINARY_DIR}/no-maintainer-script/postinst
    ${PROJECT_BINARY_DIR}/no-maintainer-script/postrm)

# Apache-2.0 (LICENSE): each package carries /usr/share/doc/<package>/copyright in
# Debian's machine-readable form, pointing at the system's copy of the licence text, and
# the changelog Debian asks of a native package (changelog.gz, gzip -9n: no name or time
# stamp inside), and the lintian overrides of cmake/debian/lintian/<package> if it has any.
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${PROJECT_BINARY_DIR}/debian/changelog @ONLY)
execute_process(COMMAND sh -c "gzip -9n -c \"$1\" > \"$2\"" sh
                        ${PROJECT_BINARY_DIR}/debian/changelog ${PROJECT_BINARY_DIR}/debian/changelog.gz
                COMMAND_ERROR_IS_FATAL ANY)
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER ${component} upper)
  set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright ${PROJECT_BINARY_DIR}/debian/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
  string(REGEX REPLACE "[0-9]+$" "" package_without_soversion ${package})
  if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/debian/lintian/${package_without_soversion})
    install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/lintian/${package_without_soversion}
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME ${package} COMPONENT ${component})
  endif()
endforeach()

include(CPack)
