# Test driver for focal_add_firmware(... EXPECT_EXIT <code>): runs a firmware and passes
# only if it ends with exactly that status. (WILL_FAIL would also pass a firmware that
# was never built or crashed for another reason.)
#   cmake -DEXPECT=<code> -P expect_exit.cmake <emulator command...> <firmware.elf>
set(command "")
set(take OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(take)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL CMAKE_SCRIPT_MODE_FILE)
    set(take ON)  # everything after the script's path is the command
  endif()
endforeach()
execute_process(COMMAND ${command} RESULT_VARIABLE status)
if(NOT status STREQUAL "${EXPECT}")
  message(FATAL_ERROR "firmware ended with '${status}', expected ${EXPECT}")
endif()
message("firmware ended with ${status} as expected")
