# Third-party code comes from Debian packages (scripts/bootstrap installs them).

# flatc runs on the build machine, also when cross-compiling.
find_program(FLATC flatc NO_CMAKE_FIND_ROOT_PATH REQUIRED)

# FlatBuffers' runtime is header-only; only its include directory is used. On bare
# metal the host's /usr/include must not be on the include path (it would pull glibc's
# headers in), so the flatbuffers directory alone is linked into the build tree.
add_library(focal_flatbuffers INTERFACE)
if(FOCAL_BARE_METAL)
  find_path(FOCAL_FLATBUFFERS_HEADER flatbuffers/flatbuffers.h
            PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  set(isolated ${CMAKE_BINARY_DIR}/third_party_include)
  file(MAKE_DIRECTORY ${isolated})
  file(CREATE_LINK ${FOCAL_FLATBUFFERS_HEADER}/flatbuffers ${isolated}/flatbuffers SYMBOLIC)
  target_include_directories(focal_flatbuffers SYSTEM INTERFACE ${isolated})
else()
  find_package(FlatBuffers REQUIRED)
  get_target_property(fb_includes flatbuffers::flatbuffers INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(focal_flatbuffers SYSTEM INTERFACE ${fb_includes})
endif()
