# `cmake --install` of focal: libraries into one export set per part (imported by
# <libdir>/cmake/focal/focalConfig.cmake as focal::<name>, the parts being its components),
# their public headers, the focal tool, the CMake helpers and a pkg-config file per part.
#
#   part        export file                    install component   pkg-config
#   engine      focalEngineTargets.cmake       dev (and lib: .so)  focal-engine.pc (focal.pc: the same)
#   converter   focalConverterTargets.cmake    converter-dev       focal-converter.pc
#   tools       (bin/focal, found by focalConfig.cmake)  cli       -
#
#   focal_install_library(<target> [PART engine|converter] [EXPORT_NAME <name>] [PKG_CONFIG]
#                         [HEADERS_BASE <dir>...] [HEADERS <file>...]
#                         [HEADERS_DESTINATION <dir below include/>])
#
# installs <target> (a library of any kind; OBJECT libraries install their objects) as
# focal::<name> (default: the target's name without `focal_`) in PART (default engine),
# and HEADERS, which lie under one of HEADERS_BASE (relative paths are taken from the
# calling directory), with their paths below it, into include/ (or
# include/<HEADERS_DESTINATION>), which becomes the installed target's include directory.
# HEADERS_BASE is also the target's include directory in the build tree, so do not add it
# with target_include_directories too. PKG_CONFIG puts -l<target> in front of the part's
# pkg-config Libs (a C or C++ library users link through `pkg-config focal-<part>`).
#
# A target in the export set may only link installed targets or libraries its users
# find: wrap build-only ones (focal_warnings, focal_engine_flags, focal_schema, header
# libraries that no installed header includes) in $<BUILD_INTERFACE:...>, or CMake
# refuses to generate the export ("requires target ... that is not in any export set").
#
# Libraries go to lib/<multiarch triplet> on Linux (lib/x86_64-linux-gnu, ...), as Debian
# installs them (debhelper passes the same CMAKE_INSTALL_LIBDIR): the packages put
# them there, and arm64 and amd64 development files can be installed side by side.
# find_package searches <prefix>/lib/<triplet>/cmake/ itself; Debian's ld.so.conf names
# /usr/local/lib/<triplet>. Bare-metal prefixes keep lib/. -DCMAKE_INSTALL_LIBDIR=lib
# chooses the plain layout. (A build directory configured before this rule holds
# GNUInstallDirs' own default, "lib" with its help string: that one is replaced too.)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_LIBRARY_ARCHITECTURE)
  get_property(focal_libdir_help CACHE CMAKE_INSTALL_LIBDIR PROPERTY HELPSTRING)
  if(NOT DEFINED CMAKE_INSTALL_LIBDIR OR
     (CMAKE_INSTALL_LIBDIR STREQUAL "lib" AND focal_libdir_help STREQUAL "Object code libraries (lib)"))
    set(CMAKE_INSTALL_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE} CACHE PATH
        "Object code libraries (lib/<multiarch triplet> on Linux)" FORCE)
  endif()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FOCAL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/focal)
set(FOCAL_INSTALL_PARTS engine converter)
set(FOCAL_DEV_COMPONENT_engine dev)
set(FOCAL_DEV_COMPONENT_converter converter-dev)
foreach(part IN LISTS FOCAL_INSTALL_PARTS)
  set_property(GLOBAL PROPERTY FOCAL_PKG_CONFIG_LIBS_${part} "")
  set_property(GLOBAL PROPERTY FOCAL_EXPORTED_${part} OFF)
endforeach()

function(focal_install_library target)
  cmake_parse_arguments(arg "PKG_CONFIG" "PART;EXPORT_NAME;HEADERS_DESTINATION" "HEADERS_BASE;HEADERS" ${ARGN})
  if(NOT arg_PART)
    set(arg_PART engine)
  endif()
  if(arg_UNPARSED_ARGUMENTS OR (arg_HEADERS AND NOT arg_HEADERS_BASE) OR NOT arg_PART IN_LIST FOCAL_INSTALL_PARTS)
    message(FATAL_ERROR "usage: focal_install_library(<target> [PART engine|converter] [EXPORT_NAME n] [PKG_CONFIG] "
                        "[HEADERS_BASE dir...] [HEADERS file...] [HEADERS_DESTINATION dir]), got: ${ARGN}")
  endif()
  set(dev ${FOCAL_DEV_COMPONENT_${arg_PART}})
  string(SUBSTRING ${arg_PART} 0 1 first)
  string(TOUPPER ${first} first)
  string(SUBSTRING ${arg_PART} 1 -1 rest)
  set(export_set focal${first}${rest}Targets)
  set_property(GLOBAL PROPERTY FOCAL_EXPORTED_${arg_PART} ON)
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
    set(file_set FILE_SET HEADERS DESTINATION ${header_destination} COMPONENT ${dev})
  endif()
  # Install components (the Debian packages, cmake/FocalPackaging.cmake): a shared
  # library's libfocal_<x>.so.N is `lib`, everything a build needs is the part's `dev`.
  install(TARGETS ${target} EXPORT ${export_set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${dev}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT ${dev}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib
    OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/focal/objects COMPONENT ${dev}
    ${file_set})
  if(arg_PKG_CONFIG)
    get_target_property(output_name ${target} OUTPUT_NAME)
    if(NOT output_name)
      set(output_name ${target})
    endif()
    set_property(GLOBAL APPEND PROPERTY FOCAL_PKG_CONFIG_LIBS_${arg_PART} -l${output_name})
  endif()
endfunction()

# The package files, once every library is declared (end of the top-level CMakeLists.txt):
# each part's export, focalConfig.cmake (which includes the helpers below), its version
# file, the pkg-config files, the CMake helpers and the toolchain files, for cross consumers.
function(focal_install_package)
  set(FOCAL_PREFIX_RUNS_ON_BUILD_MACHINE ON)  # its focal tool can plan firmware models
  if(CMAKE_CROSSCOMPILING)
    set(FOCAL_PREFIX_RUNS_ON_BUILD_MACHINE OFF)
  endif()
  foreach(part IN LISTS FOCAL_INSTALL_PARTS)
    get_property(exported GLOBAL PROPERTY FOCAL_EXPORTED_${part})
    if(exported)
      string(SUBSTRING ${part} 0 1 first)
      string(TOUPPER ${first} first)
      string(SUBSTRING ${part} 1 -1 rest)
      install(EXPORT focal${first}${rest}Targets NAMESPACE focal:: DESTINATION ${FOCAL_INSTALL_CMAKEDIR}
              COMPONENT ${FOCAL_DEV_COMPONENT_${part}})
    endif()
  endforeach()
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
  focal_install_pkg_config_files()
endfunction()

# focal-engine.pc, focal.pc (the same, by Requires: what `pkg-config focal` always
# meant) and, where the converter is built, focal-converter.pc. Each part's Libs: its
# PKG_CONFIG libraries, the last declared first (users before the engine); the engine's
# end with the C++ runtime, which a C program linking a static focal library needs (and
# GNU ld does not take from libfocal_engine.so's own dependencies).
function(focal_install_pkg_config_files)
  file(RELATIVE_PATH FOCAL_PC_PREFIX_FROM_PCFILEDIR /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
  string(REGEX REPLACE "/$" "" FOCAL_PC_PREFIX_FROM_PCFILEDIR "${FOCAL_PC_PREFIX_FROM_PCFILEDIR}")
  set(pc_files focal-engine focal)
  get_property(converter_exported GLOBAL PROPERTY FOCAL_EXPORTED_converter)
  if(converter_exported)
    list(APPEND pc_files focal-converter)
  endif()
  foreach(pc IN LISTS pc_files)
    string(REGEX REPLACE "^focal-?" "" part "${pc}")
    set(component dev)
    if(part)
      get_property(pkg_libs GLOBAL PROPERTY FOCAL_PKG_CONFIG_LIBS_${part})
      list(REVERSE pkg_libs)
      list(JOIN pkg_libs " " FOCAL_PC_LIBS)
      set(component ${FOCAL_DEV_COMPONENT_${part}})
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ${component})
  endforeach()
endfunction()
