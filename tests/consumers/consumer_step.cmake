# One step of a consumer test (tests/consumers/CMakeLists.txt), run as
#   cmake -DSTEP=<step> ... -P tests/consumers/consumer_step.cmake
# so that each ctest test is one command that fails on the first failing step.
#   install     BUILD_DIR PREFIX [COMPONENTS]: `cmake --install BUILD_DIR --prefix PREFIX`,
#               from empty; with COMPONENTS only those install components (lib, dev, ...)
#   cmake       SOURCE_DIR BINARY_DIR PREFIX LIBDIR [TOOLCHAIN] [CACHE_ARGS]: configure the
#               consumer project with find_package(focal) from PREFIX, build it, run its ctest
#   pkg-config  PREFIX LIBDIR SOURCE COMPILER OUTPUT PACKAGE [FLAGS] [RUN_ARGS]: compile and
#               link SOURCE with `pkg-config --cflags --libs PACKAGE` from PREFIX, run it (the
#               prefix's LIBDIR on LD_LIBRARY_PATH: the linker picks libfocal_engine.so)
#   deb         BUILD_DIR ROOT LIBDIR PACKAGES_DIR EMULATOR MODEL: `cpack -G DEB` of
#               BUILD_DIR, each package `dpkg -x` into an empty ROOT, lintian on them (no
#               error, no warning), then `ROOT/usr/bin/focal verify MODEL` under EMULATOR
#               with ROOT/usr/LIBDIR as the library path
# LIBDIR is the build's CMAKE_INSTALL_LIBDIR (lib/<triplet> on Linux, lib on bare metal).
# Lists (CACHE_ARGS, FLAGS, RUN_ARGS, EMULATOR, COMPONENTS) are passed with `|` between items.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "failed (${result}): ${command}")
  endif()
endfunction()

function(split_list name)
  string(REPLACE "|" ";" items "${${name}}")
  set(${name} "${items}" PARENT_SCOPE)
endfunction()

foreach(list CACHE_ARGS FLAGS RUN_ARGS EMULATOR COMPONENTS)
  split_list(${list})
endforeach()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  if(NOT COMPONENTS)
    run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
  endif()
  foreach(component IN LISTS COMPONENTS)
    run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}" --component ${component})
  endforeach()
elseif(STEP STREQUAL "cmake")
  set(configure ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G Ninja
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
      "-DCMAKE_PREFIX_PATH=${PREFIX}" "-Dfocal_DIR=${PREFIX}/${LIBDIR}/cmake/focal" ${CACHE_ARGS})
  if(TOOLCHAIN)
    list(APPEND configure "-DCMAKE_TOOLCHAIN_FILE=${PREFIX}/${LIBDIR}/cmake/focal/toolchains/${TOOLCHAIN}")
  endif()
  file(REMOVE "${BINARY_DIR}/CMakeCache.txt")  # a fresh configure against this prefix
  run(${configure})
  run(${CMAKE_COMMAND} --build "${BINARY_DIR}")
  run(${CMAKE_CTEST_COMMAND} --test-dir "${BINARY_DIR}" --output-on-failure)
elseif(STEP STREQUAL "pkg-config")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
  execute_process(COMMAND pkg-config --cflags --libs ${PACKAGE}
                  OUTPUT_VARIABLE pkg_flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config ${PACKAGE} failed (${result}) with PKG_CONFIG_PATH=$ENV{PKG_CONFIG_PATH}")
  endif()
  message(STATUS "pkg-config --cflags --libs ${PACKAGE}: ${pkg_flags}")
  separate_arguments(pkg_flags UNIX_COMMAND "${pkg_flags}")
  get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
  file(MAKE_DIRECTORY "${output_dir}")
  run(${COMPILER} ${FLAGS} "${SOURCE}" ${pkg_flags} -o "${OUTPUT}")
  set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}")
  run("${OUTPUT}" ${RUN_ARGS})
elseif(STEP STREQUAL "deb")
  file(REMOVE_RECURSE "${PACKAGES_DIR}" "${ROOT}")
  run(cpack -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${PACKAGES_DIR}")
  file(GLOB packages "${PACKAGES_DIR}/*.deb")
  list(LENGTH packages count)
  if(NOT count EQUAL 3)
    message(FATAL_ERROR "cpack wrote ${count} packages, not 3 (focal, libfocal-engine0, libfocal-dev): ${packages}")
  endif()
  foreach(package IN LISTS packages)
    run(dpkg-deb --info "${package}")
    run(dpkg -x "${package}" "${ROOT}")
  endforeach()
  # Debian policy: every package names its licence in /usr/share/doc/<package>/copyright.
  foreach(name focal libfocal-engine0 libfocal-dev)
    if(NOT EXISTS "${ROOT}/usr/share/doc/${name}/copyright")
      message(FATAL_ERROR "package ${name} has no /usr/share/doc/${name}/copyright")
    endif()
  endforeach()
  # Debian would accept them: lintian reports no error and no warning (scripts/bootstrap
  # installs it; scripts/check-packages prints its whole report).
  find_program(LINTIAN lintian REQUIRED)
  run(${LINTIAN} --fail-on error,warning ${packages})
  set(ENV{LD_LIBRARY_PATH} "${ROOT}/usr/${LIBDIR}")  # qemu-user passes it to the target's loader
  run(${EMULATOR} "${ROOT}/usr/bin/focal" --version)
  run(${EMULATOR} "${ROOT}/usr/bin/focal" verify "${MODEL}")
else()
  message(FATAL_ERROR "STEP must be install, cmake, pkg-config or deb, not '${STEP}'")
endif()
