# Install rules and the exported CMake package, so that another project can
#   find_package(pteshare 0.1 REQUIRED)
#   target_link_libraries(loader PRIVATE pteshare::runtime_check)
#   pteshare_rewrite(OUTPUT model-shared.pte INPUT model.pte SHARE_AUTO)
# Included once from the top-level CMakeLists.txt after every target exists.
#
# Installed layout (under CMAKE_INSTALL_PREFIX):
#   bin/pteshare, bin/pte-synth, bin/pteshare-selfcheck
#   lib/libpteshare_runtime_check.a
#   include/pteshare/runtime_check/alias_check.h (#include "runtime_check/alias_check.h";
#                                                 C++17, standard library only)
#   include/pteshare/program_generated.h, scalar_type_generated.h, tensor_nbytes.h
#                                 (pteshare::schema; not in the checker-only build)
#   lib/cmake/pteshare/pteshareConfig.cmake (+ Version, Targets, pteshare_rewrite.cmake)
# Consumers get include/pteshare on their include path, so the includes read
# the same as inside this project.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PTESHARE_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/pteshare)
set(PTESHARE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/pteshare)

# The build tree's include directories are BUILD_INTERFACE only; these are
# what the same targets mean once installed.
target_include_directories(pteshare_runtime_check INTERFACE
  $<INSTALL_INTERFACE:${PTESHARE_INSTALL_INCLUDEDIR}>)
# Exported as pteshare::runtime_check and (full build) pteshare::schema.
set_target_properties(pteshare_runtime_check PROPERTIES EXPORT_NAME runtime_check)
set(_pteshare_libraries pteshare_runtime_check)
if(TARGET pteshare_schema)
  target_include_directories(pteshare_schema INTERFACE
    $<INSTALL_INTERFACE:${PTESHARE_INSTALL_INCLUDEDIR}>)
  set_target_properties(pteshare_schema PROPERTIES EXPORT_NAME schema)
  list(APPEND _pteshare_libraries pteshare_schema)
endif()
if(PTESHARE_SANITIZE)
  # A sanitized static library needs the sanitizer runtimes in whatever
  # links it.
  target_link_options(pteshare_runtime_check INTERFACE
    $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()

set(_pteshare_programs)
foreach(_program pteshare pte-synth pteshare-selfcheck)
  if(TARGET ${_program})
    list(APPEND _pteshare_programs ${_program})
  endif()
endforeach()

install(TARGETS ${_pteshare_programs} ${_pteshare_libraries}
  EXPORT pteshareTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The checker's public header only; the rest of runtime_check/ is internal.
install(FILES ${PROJECT_SOURCE_DIR}/runtime_check/alias_check.h
  DESTINATION ${PTESHARE_INSTALL_INCLUDEDIR}/runtime_check)
if(TARGET pteshare_schema)
  install(FILES
      ${PROJECT_BINARY_DIR}/schema/generated/program_generated.h
      ${PROJECT_BINARY_DIR}/schema/generated/scalar_type_generated.h
      ${PROJECT_SOURCE_DIR}/schema/tensor_nbytes.h
    DESTINATION ${PTESHARE_INSTALL_INCLUDEDIR})
endif()

install(EXPORT pteshareTargets
  NAMESPACE pteshare::
  DESTINATION ${PTESHARE_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/pteshareConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pteshareConfig.cmake
  INSTALL_DESTINATION ${PTESHARE_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/pteshareConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
    ${PROJECT_BINARY_DIR}/pteshareConfig.cmake
    ${PROJECT_BINARY_DIR}/pteshareConfigVersion.cmake
    ${CMAKE_CURRENT_LIST_DIR}/pteshare_rewrite.cmake
  DESTINATION ${PTESHARE_INSTALL_CMAKEDIR})
