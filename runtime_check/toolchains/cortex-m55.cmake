# The checker library (pteshare_runtime_check) cross-compiled for a Cortex-M55
# with Debian's bare-metal GCC (gcc-arm-none-eabi + libnewlib-arm-none-eabi,
# .ci/install-deps). For the library-only build:
#
#   cmake -S . -B build-mcu -G Ninja -DPTESHARE_RUNTIME_CHECK_ONLY=ON \
#     -DCMAKE_TOOLCHAIN_FILE=runtime_check/toolchains/cortex-m55.cmake \
#     -DCMAKE_BUILD_TYPE=MinSizeRel
#   cmake --build build-mcu --target pteshare_runtime_check
#
# Build that one target: the checker-only build also defines
# pteshare-selfcheck, a host program (files, printf) that has nothing to link
# against here. .ci/mcu-size does the above and measures the result.
#
# The flags go in CMAKE_<LANG>_FLAGS_INIT, so they are the start of
# CMAKE_<LANG>_FLAGS in a new build tree. A -DCMAKE_CXX_FLAGS=... given on
# the command line replaces them whole (the cache entry already exists, so
# the _INIT value is never used): add flags with
# -DCMAKE_CXX_FLAGS_<CONFIG>=... or the CXXFLAGS environment variable
# instead, as .ci/mcu-size does.

set(CMAKE_SYSTEM_NAME Generic)  # bare metal: no OS, no shared libraries
set(CMAKE_SYSTEM_PROCESSOR cortex-m55)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
# CMake takes ar, ranlib, nm, ... with the compiler's prefix (arm-none-eabi-ar).

# CMake's compiler checks build a small program in try_compile. Linking one
# needs startup code, a linker script and the system calls newlib expects
# (_sbrk, _write, ...), which a library build has none of: make the checks
# build a static library instead, so they compile and archive only.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# -mcpu=cortex-m55 -mthumb: the M55's instruction set (Armv8.1-M Mainline,
#   Thumb-2 only; -mthumb is implied there but said, as M-profile builds
#   always do). No -mfloat-abi: GCC's default (soft) is what Debian's newlib
#   multilib for the M55 (thumb/v8-m.main/nofp) is built with; an
#   application that uses -mfloat-abi=hard builds the library with its own
#   flags, and nothing here depends on it (the checker does no floating
#   point).
# -Os: size over speed; MinSizeRel asks for it too.
# -fno-exceptions -fno-rtti: a firmware loader has neither (no unwinder, no
#   type_info in flash): the library must build and work without them.
# -ffunction-sections -fdata-sections: every function and object in its own
#   section, so the application's link with --gc-sections drops whatever of
#   the library it does not call; also what lets .ci/mcu-size read a size
#   per function.
set(_pteshare_mcu_flags
    "-mcpu=cortex-m55 -mthumb -Os -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_pteshare_mcu_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_pteshare_mcu_flags} -fno-exceptions -fno-rtti")

# Look for programs on the host, for libraries, headers and packages only
# under a target root (none is set: nothing of the host's is taken for the
# target's).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
