# The op kinds, read from engine/internal/focal/internal/op_kinds.h, so that its rows are
# the one list an op is added to: the engine's op files, the converter's reference
# functions and spec layers are found from them rather than listed again by hand.
#
#   focal_op_kinds(<out-var> [INT8])
#     the `def` of every FOCAL_FOR_EACH_OP row, in the header's order (INT8: of every
#     FOCAL_FOR_EACH_INT8_OP row instead).
#   focal_op_sources(<out-var> DIRECTORY <dir> SUFFIX <suffix> [INT8] [REQUIRED])
#     <dir>/<def><suffix> for each of those defs whose file exists (REQUIRED: each must,
#     else configuring fails naming the row and the file). Ops without a file of their
#     own are defined in a family file (e.g. converter/src/reference/elementwise_ops.cpp)
#     that the caller lists itself.
#
# Editing op_kinds.h reconfigures the build (CMAKE_CONFIGURE_DEPENDS), so a new row's
# files are compiled at the next build without touching a CMakeLists.txt.
include_guard(GLOBAL)

function(focal_op_kinds out)
  cmake_parse_arguments(arg "INT8" "" "" ${ARGN})
  # Found from this file, not a variable: a variable set on inclusion would be seen only
  # by the directory that included the module first (include_guard).
  set(header ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../engine/internal/focal/internal/op_kinds.h)
  cmake_path(NORMAL_PATH header)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${header})
  # A row is `  X(SchemaName, def, "spec kind")  \` (INT8: `  X(SchemaName, def)  \`) on a
  # line of its own; the header's comments quote the form after `//`, which the leading
  # newline and spaces exclude. Read whole (file(STRINGS) lines end in the macro's `\`,
  # which would escape CMake's list separator).
  if(arg_INT8)
    set(row "\n  X\\(([A-Za-z0-9]+), ([a-z0-9_]+)\\)")
  else()
    set(row "\n  X\\(([A-Za-z0-9]+), ([a-z0-9_]+), \"[a-z0-9_]+\"\\)")
  endif()
  file(READ ${header} text)
  string(REGEX MATCHALL "${row}" rows "${text}")
  set(defs)
  foreach(line IN LISTS rows)
    string(REGEX MATCH "${row}" _ "${line}")
    list(APPEND defs ${CMAKE_MATCH_2})
  endforeach()
  if(NOT defs)
    message(FATAL_ERROR "no op rows found in ${header} (cmake/FocalOpKinds.cmake reads them)")
  endif()
  set(${out} ${defs} PARENT_SCOPE)
endfunction()

function(focal_op_sources out)
  cmake_parse_arguments(arg "INT8;REQUIRED" "DIRECTORY;SUFFIX" "" ${ARGN})
  if(arg_INT8)
    focal_op_kinds(defs INT8)
  else()
    focal_op_kinds(defs)
  endif()
  set(sources)
  foreach(def IN LISTS defs)
    set(file ${arg_DIRECTORY}/${def}${arg_SUFFIX})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${file})
      list(APPEND sources ${file})
    elseif(arg_REQUIRED)
      message(FATAL_ERROR "op_kinds.h lists '${def}', but ${CMAKE_CURRENT_SOURCE_DIR}/${file} does not exist")
    endif()
  endforeach()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
