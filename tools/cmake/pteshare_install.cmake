# Install rules and the exported CMake package, so that another project can
#   find_package(pteshare 0.1 REQUIRED)
#   target_link_libraries(loader PRIVATE pteshare::runtime_check)
#   target_link_libraries(exporter PRIVATE pteshare::rewriter)   # RewriteBytes, RewriteFile
#   pteshare_rewrite(OUTPUT model-shared.pte INPUT model.pte SHARE_AUTO)
# Included once from the top-level CMakeLists.txt after every target exists.
#
# Installed layout (under CMAKE_INSTALL_PREFIX):
#   bin/pteshare, bin/pte-synth, bin/pteshare-selfcheck
#   lib/libpteshare_runtime_check.a (the checker: check.h, no heap, no
#     exceptions) and lib/libpteshare_runtime_check_report.a (alias_check.h,
#     its findings as messages)
#   include/pteshare/runtime_check/check.h and alias_check.h
#     (#include "runtime_check/check.h"; C++17, no dependency)
#   lib/libpteshare_rewriter.a, its stage libraries (libpteshare_program.a,
#     ..., libpteshare_bundle.a) and lib/libpteshare_blockplan.a (full build)
#   include/pteshare/rewriter/rewrite.h and the headers it includes, plain
#     types only (#include "rewriter/rewrite.h"), with pte_header.h and
#     wire.h (not in the checker-only build); no generated code
#   lib/cmake/pteshare/pteshareConfig.cmake (+ Version, Targets, pteshare_rewrite.cmake)
#   the Python module in PTESHARE_PYTHON_INSTALL_DIR (python/CMakeLists.txt)
# `cmake --install BUILD --strip` installs the programs stripped (README).
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
# Exported as pteshare::runtime_check (the same name add_subdirectory users
# link: runtime_check/CMakeLists.txt makes it an alias),
# pteshare::runtime_check_report and (full build) pteshare::rewriter,
# pteshare::schema, and the libraries the rewriter links.
set_target_properties(pteshare_runtime_check PROPERTIES EXPORT_NAME runtime_check)
set(_pteshare_libraries pteshare_runtime_check)
if(TARGET pteshare_runtime_check_report)  # not in a bare-metal build
  set_target_properties(pteshare_runtime_check_report PROPERTIES EXPORT_NAME runtime_check_report)
  list(APPEND _pteshare_libraries pteshare_runtime_check_report)
endif()
if(TARGET pteshare_rewriter)
  foreach(_target pteshare_schema pteshare_rewriter)
    target_include_directories(${_target} INTERFACE
      $<INSTALL_INTERFACE:${PTESHARE_INSTALL_INCLUDEDIR}>)
  endforeach()
  # pteshare::rewriter links the stage libraries (pteshare::program, ...,
  # pteshare::bundle); they are installed with it, named after their folder.
  foreach(_target pteshare_schema pteshare_blockplan pteshare_result ${PTESHARE_REWRITER_STAGES})
    string(REPLACE "pteshare_" "" _name ${_target})
    set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  endforeach()
  list(APPEND _pteshare_libraries pteshare_schema pteshare_blockplan pteshare_result
       ${PTESHARE_REWRITER_STAGES})
endif()
if(PTESHARE_SANITIZE OR PTESHARE_FUZZ)
  # A sanitized static library needs the sanitizer runtimes in whatever
  # links it.
  foreach(_target ${_pteshare_libraries})
    target_link_options(${_target} INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  endforeach()
  if(TARGET pteshare_rewriter)
    target_link_options(pteshare_rewriter INTERFACE
      $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
  endif()
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

# The checker's public headers only; the rest of runtime_check/ is internal.
install(FILES ${PROJECT_SOURCE_DIR}/runtime_check/check.h
  ${PROJECT_SOURCE_DIR}/runtime_check/alias_check.h
  DESTINATION ${PTESHARE_INSTALL_INCLUDEDIR}/runtime_check)
if(TARGET pteshare_rewriter)
  # The rewriter's public headers: rewrite.h (the pipeline) and the headers
  # of the types its options and results are made of, nothing else
  # (tests/consumer builds against these alone). Plain types only: no
  # header here includes FlatBuffers-generated code (program_view.h), so
  # none of that is installed.
  set(_pteshare_rewriter_public_headers
    rewrite.h open_program.h base/result.h
    patch/byte_overwrite.h patch/patcher.h patch/tensor_name.h
    plan/memory_cost.h plan/plan.h plan/planner.h plan/saving.h
    program/bundle.h program/instruction_effects.h program/program_view.h
    program/pte_file.h program/pte_layout.h program/stored_array.h
    share/shared_buffers.h
    verify/layout_costs.h verify/plan_verifier.h verify/violation.h)
  foreach(_header ${_pteshare_rewriter_public_headers})
    get_filename_component(_folder ${_header} DIRECTORY)
    install(FILES ${PROJECT_SOURCE_DIR}/rewriter/${_header}
      DESTINATION ${PTESHARE_INSTALL_INCLUDEDIR}/rewriter/${_folder})
  endforeach()
  # pte_layout.h's ExtendedHeader, and the little-endian loads it and
  # stored_array.h use.
  install(FILES
      ${PROJECT_SOURCE_DIR}/schema/pte_header.h
      ${PROJECT_SOURCE_DIR}/schema/extended_header.h
      ${PROJECT_SOURCE_DIR}/schema/wire.h
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
