# Warnings are errors in everything of ours, on every target (GCC). The fuzz preset builds
# with clang, whose -Wconversion family is wider: there they stay warnings.
add_library(focal_warnings INTERFACE)
target_compile_options(focal_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion $<IF:$<BOOL:${FOCAL_FUZZ}>,,-Werror>)

# The engine itself: no exceptions, no RTTI, in any build (errors are Status values).
add_library(focal_engine_flags INTERFACE)
target_compile_options(focal_engine_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti>)
target_link_libraries(focal_engine_flags INTERFACE focal_warnings)

# Tests index with int64_t shapes on 32-bit targets too; -Wconversion there would only
# add casts to test arithmetic, so tests keep the other warnings.
add_library(focal_test_warnings INTERFACE)
target_compile_options(focal_test_warnings INTERFACE -Wall -Wextra -Wshadow $<IF:$<BOOL:${FOCAL_FUZZ}>,,-Werror>)
