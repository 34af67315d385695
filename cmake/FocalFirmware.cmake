# Firmware for Cortex-M under the toolchain file toolchains/cortex-m.cmake: focal_add_firmware.
# In this repository targets/cortex-m/CMakeLists.txt includes it; from an installed prefix
# focalConfig.cmake does. Either sets, before including:
#   FOCAL_CORTEX_M_LD_DIR       the linker scripts (<board>.ld, sections.ld)
#   FOCAL_CORTEX_M_SCRIPTS_DIR  check_size.py and expect_exit.cmake
# and the runtime (startup, vector table, syscalls) is the target focal_cortex_m_runtime
# in the build tree, focal::cortex_m_runtime from a prefix.
if(NOT DEFINED FOCAL_CORTEX_M_BOARD)
  message(FATAL_ERROR "focal_add_firmware needs -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m.cmake")
endif()
if(TARGET focal_cortex_m_runtime)
  set(FOCAL_CORTEX_M_RUNTIME focal_cortex_m_runtime CACHE INTERNAL "")
else()
  set(FOCAL_CORTEX_M_RUNTIME focal::cortex_m_runtime CACHE INTERNAL "")
endif()
set(FOCAL_CORTEX_M_LD_DIR "${FOCAL_CORTEX_M_LD_DIR}" CACHE INTERNAL "")  # seen from every directory
set(FOCAL_CORTEX_M_SCRIPTS_DIR "${FOCAL_CORTEX_M_SCRIPTS_DIR}" CACHE INTERNAL "")
set(FOCAL_CORTEX_M_TEST_TIMEOUT 300 CACHE STRING
    "ctest timeout (s) of a firmware test (an endless loop or WFI would run qemu forever)")
find_program(FOCAL_CORTEX_M_SIZE arm-none-eabi-size REQUIRED)
find_program(FOCAL_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH REQUIRED)  # Debian's, for check_size.py

# focal_add_firmware(<name> SOURCES <src>... [LINK_LIBRARIES <lib>...]
#                    [STACK_SIZE <bytes>] [TIMEOUT <seconds>] [EXPECT_EXIT <code>] [NO_TEST]
#                    [ICOUNT] [FLASH_BUDGET <bytes>] [RAM_BUDGET <bytes>] [ENGINE_BUDGET <bytes>])
# (`focal_add_firmware(NAME <name> SOURCES ...)` is accepted too.)
# Creates executable target <name> (file <name>.elf, map <name>.map) linked with the
# runtime and the board's linker script, prints its flash, RAM and engine bytes after
# each link (check_size.py) and, unless NO_TEST, adds ctest <name>: passes iff the
# firmware's exit status is EXPECT_EXIT (default 0: main returned 0). A fault exits
# 128 + exception number (HardFault: 131), abort() 134. A locked-up core makes qemu
# abort; an endless loop hits TIMEOUT. ICOUNT runs qemu with `-icount shift=0`: virtual
# time advances 1 ns per instruction, so SysTick cycle counts (cycle_counter.h) repeat
# from run to run. With any *_BUDGET, ctest <name>_size (label size) fails when the
# firmware outgrows it: flash = text + data, RAM = data + bss + stack, engine = the code
# and constants linked from libfocal_engine.a.
function(focal_add_firmware)
  cmake_parse_arguments(fw "NO_TEST;ICOUNT"
    "NAME;STACK_SIZE;TIMEOUT;EXPECT_EXIT;FLASH_BUDGET;RAM_BUDGET;ENGINE_BUDGET" "SOURCES;LINK_LIBRARIES" ${ARGN})
  set(name ${fw_NAME})
  if(NOT name)
    list(POP_FRONT fw_UNPARSED_ARGUMENTS name)  # positional form
  endif()
  if(NOT name OR NOT fw_SOURCES OR fw_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "usage: focal_add_firmware(<name> SOURCES <src>... [LINK_LIBRARIES ...] "
                        "[STACK_SIZE n] [TIMEOUT s] [EXPECT_EXIT code] [NO_TEST]), got: ${ARGN}")
  endif()

  set(ld_dir ${FOCAL_CORTEX_M_LD_DIR})
  set(script ${ld_dir}/${FOCAL_CORTEX_M_BOARD}.ld)
  add_executable(${name} ${fw_SOURCES})
  set_target_properties(${name} PROPERTIES
    SUFFIX ".elf"
    LINK_DEPENDS "${script};${ld_dir}/sections.ld")  # relink when a script changes
  target_link_libraries(${name} PRIVATE ${FOCAL_CORTEX_M_RUNTIME} ${fw_LINK_LIBRARIES})
  # -L: the board script INCLUDEs sections.ld from the same directory.
  target_link_options(${name} PRIVATE -T${script} -L${ld_dir}
    -Wl,-Map=$<TARGET_FILE_DIR:${name}>/${name}.map)
  if(fw_STACK_SIZE)
    target_link_options(${name} PRIVATE -Wl,--defsym=__stack_size=${fw_STACK_SIZE})
  endif()
  set(size_check ${FOCAL_PYTHON} ${FOCAL_CORTEX_M_SCRIPTS_DIR}/check_size.py ${FOCAL_CORTEX_M_SIZE}
      $<TARGET_FILE:${name}> $<TARGET_FILE_DIR:${name}>/${name}.map)
  foreach(budget FLASH RAM ENGINE)
    string(TOLOWER ${budget} option)
    if(fw_${budget}_BUDGET)
      list(APPEND size_check --${option} ${fw_${budget}_BUDGET})
    endif()
  endforeach()
  # The table after every link; exceeding a budget fails the <name>_size test, not the build.
  add_custom_command(TARGET ${name} POST_BUILD COMMAND ${size_check} --report-only VERBATIM)
  if(fw_FLASH_BUDGET OR fw_RAM_BUDGET OR fw_ENGINE_BUDGET)
    add_test(NAME ${name}_size COMMAND ${size_check})
    set_tests_properties(${name}_size PROPERTIES LABELS "cortex-m;size")
  endif()

  if(NOT fw_NO_TEST)
    if(fw_EXPECT_EXIT AND NOT fw_EXPECT_EXIT EQUAL 0)
      add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DEXPECT=${fw_EXPECT_EXIT}
               -P ${FOCAL_CORTEX_M_SCRIPTS_DIR}/expect_exit.cmake
               ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:${name}>)
    elseif(fw_ICOUNT)
      # The emulator command ends with -kernel: the option goes in front of it.
      set(emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
      list(POP_BACK emulator kernel_option)
      add_test(NAME ${name} COMMAND ${emulator} -icount shift=0 ${kernel_option} $<TARGET_FILE:${name}>)
    else()
      add_test(NAME ${name} COMMAND ${name})  # ctest prepends the emulator
    endif()
    if(NOT fw_TIMEOUT)
      set(fw_TIMEOUT ${FOCAL_CORTEX_M_TEST_TIMEOUT})
    endif()
    set_tests_properties(${name} PROPERTIES TIMEOUT ${fw_TIMEOUT} LABELS cortex-m)
  endif()
endfunction()

