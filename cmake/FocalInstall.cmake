# `cmake --install` of focal: libraries into one export set (focalTargets, imported by
# lib/cmake/focal/focalConfig.cmake as focal::<name>), their public headers, the focal
# tool, the CMake helpers and lib/pkgconfig/focal.pc.
#
#   focal_install_library(<target> [EXPORT_NAME <name>] [PKG_CONFIG]
#                         [HEADERS_BASE <dir>...] [HEADERS <file>...]
#                         [HEADERS_DESTINATION <dir below include/>])
#
# installs <target> (a library of any kind; OBJECT libraries install their objects) as
# focal::<name> (default: the target's name without `focal_`), and HEADERS, which lie
# under one of HEADERS_BASE (relative paths are taken from the calling directory), with
# their paths below it, into include/ (or include/<HEADERS_DESTINATION>), which becomes
# the installed target's include directory. HEADERS_BASE is also the target's include
# directory in the build tree, so do not add it with target_include_directories too.
# PKG_CONFIG puts -l<target> in front of focal.pc's Libs (a C or C++ library users link
# through `pkg-config focal`).
#
# A target in the export set may only link installed targets or libraries its users
# find: wrap build-only ones (focal_warnings, focal_engine_flags, focal_schema, header
# libraries that no installed header includes) in $<BUILD_INTERFACE:...>, or CMake
# refuses to generate the export ("requires target ... that is not in any export set").
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FOCAL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/focal)
set_property(GLOBAL PROPERTY FOCAL_PKG_CONFIG_LIBS "")

function(focal_install_library target)
  cmake_parse_arguments(arg "PKG_CONFIG" "EXPORT_NAME;HEADERS_DESTINATION" "HEADERS_BASE;HEADERS" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS OR (arg_HEADERS AND NOT arg_HEADERS_BASE))
    message(FATAL_ERROR "usage: focal_install_library(<target> [EXPORT_NAME n] [PKG_CONFIG] "
                        "[HEADERS_BASE dir...] [HEADERS file...] [HEADERS_DESTINATION dir]), got: ${ARGN}")
  endif()
  if(NOT arg_EXPORT_NAME)
    string(REGEX REPLACE "^focal_" "" arg_EXPORT_NAME ${target})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${arg_EXPORT_NAME})
  set(header_destination ${CMAKE_INSTALL_INCLUDEDIR})
  if(arg_HEADERS_DESTINATION)
    string(APPEND header_destination /${arg_HEADERS_DESTINATION})
  endif()
  set(file_set "")
  if(arg_HEADERS)
    get_target_property(type ${target} TYPE)
    set(scope PUBLIC)
    if(type STREQUAL "INTERFACE_LIBRARY")
      set(scope INTERFACE)
    endif()
    target_sources(${target} ${scope} FILE_SET HEADERS BASE_DIRS ${arg_HEADERS_BASE} FILES ${arg_HEADERS})
    set(file_set FILE_SET HEADERS DESTINATION ${header_destination} COMPONENT dev)
  endif()
  # Components (the Debian packages, cmake/FocalPackaging.cmake): a shared library's
  # libfocal_<x>.so.N is `lib`, everything a build needs is `dev`.
  install(TARGETS ${target} EXPORT focalTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib
    OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/focal/objects COMPONENT dev
    ${file_set})
  if(arg_PKG_CONFIG)
    get_target_property(output_name ${target} OUTPUT_NAME)
    if(NOT output_name)
      set(output_name ${target})
    endif()
    set_property(GLOBAL APPEND PROPERTY FOCAL_PKG_CONFIG_LIBS -l${output_name})
  endif()
endfunction()

# The package files, once every library is declared (end of the top-level CMakeLists.txt):
# the export, focalConfig.cmake (which includes the helpers below), its version file,
# focal.pc, the CMake helpers and the toolchain files, for cross consumers.
function(focal_install_package)
  set(FOCAL_PREFIX_RUNS_ON_BUILD_MACHINE ON)  # its focal tool can plan firmware models
  if(CMAKE_CROSSCOMPILING)
    set(FOCAL_PREFIX_RUNS_ON_BUILD_MACHINE OFF)
  endif()
  set(FOCAL_PREFIX_HAS_CONVERTER OFF)
  if(TARGET focal_convert)
    set(FOCAL_PREFIX_HAS_CONVERTER ON)
  endif()
  install(EXPORT focalTargets NAMESPACE focal:: DESTINATION ${FOCAL_INSTALL_CMAKEDIR} COMPONENT dev)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/focalConfig.cmake.in
    ${PROJECT_BINARY_DIR}/focalConfig.cmake
    INSTALL_DESTINATION ${FOCAL_INSTALL_CMAKEDIR}
    PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
  # 0.x: a minor version may break the API, so only the same minor version is compatible.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/focalConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${PROJECT_BINARY_DIR}/focalConfig.cmake
    ${PROJECT_BINARY_DIR}/focalConfigVersion.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FocalEmbedModel.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FocalSelectOps.cmake
    ${PROJECT_SOURCE_DIR}/cmake/FocalFirmware.cmake
    DESTINATION ${FOCAL_INSTALL_CMAKEDIR} COMPONENT dev)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/toolchains/
    DESTINATION ${FOCAL_INSTALL_CMAKEDIR}/toolchains COMPONENT dev)

  # Libs: every PKG_CONFIG library, the last declared first (users before the engine),
  # then the C++ runtime, which a C program linking a static focal library needs (and GNU
  # ld does not take from libfocal_engine.so's own dependencies).
  get_property(pkg_libs GLOBAL PROPERTY FOCAL_PKG_CONFIG_LIBS)
  list(REVERSE pkg_libs)
  list(JOIN pkg_libs " " FOCAL_PC_LIBS)
  file(RELATIVE_PATH FOCAL_PC_PREFIX_FROM_PCFILEDIR /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
  string(REGEX REPLACE "/$" "" FOCAL_PC_PREFIX_FROM_PCFILEDIR "${FOCAL_PC_PREFIX_FROM_PCFILEDIR}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/focal.pc.in ${PROJECT_BINARY_DIR}/focal.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/focal.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endfunction()
