# pteshare_rewrite: a build step that makes the methods of a .pte share
# their mutable buffers, with the installed `pteshare rewrite`.
#
#   pteshare_rewrite(OUTPUT <out.pte> INPUT <in.pte>
#                    [SHARE <name>...] [SHARE_AUTO] [NAME <method:value_index=name>...]
#                    [NAMES_FROM <file>...] [STRATEGY relocate|replan|best]
#                    [LAYOUT front|arena] [ALIGNMENT <n>] [ARENA_LIMIT <id=bytes>...]
#                    [WRITE_NAMES [ALLOW_POSITION_NAMES]] [TARGET <target>])
#
# Each option is the flag of `pteshare rewrite` of the same name (--share,
# --share-auto, --name, --names-from, --strategy, --layout, --alignment,
# --arena-limit, --write-names, --allow-position-names). With neither SHARE
# nor SHARE_AUTO nothing is shared and the arenas are only replanned, as on
# the command line.
#
# Adds a custom command producing OUTPUT from INPUT. It runs again when
# INPUT or a NAMES_FROM file changes (INPUT may itself be the OUTPUT of
# another custom command) or the pteshare executable does (a newer pteshare
# may plan better). A relative NAMES_FROM is taken from the current source
# folder.
# A relative INPUT is taken from the current source folder, a relative
# OUTPUT goes to the current binary folder, as add_custom_command does.
# With TARGET, also adds a target of that name, built by default, so the
# output is made by `cmake --build` without anything else depending on it.
# A plan that fails its checks fails the build (pteshare exits non-zero and
# writes nothing).
function(pteshare_rewrite)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "SHARE_AUTO;WRITE_NAMES;ALLOW_POSITION_NAMES"
                        "OUTPUT;INPUT;STRATEGY;LAYOUT;ALIGNMENT;TARGET"
                        "SHARE;NAME;NAMES_FROM;ARENA_LIMIT")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pteshare_rewrite: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_OUTPUT OR NOT ARG_INPUT)
    message(FATAL_ERROR "pteshare_rewrite: OUTPUT and INPUT are required")
  endif()
  if(NOT TARGET pteshare::pteshare)
    message(FATAL_ERROR "pteshare_rewrite: the pteshare::pteshare executable is not imported "
                        "(call find_package(pteshare) first)")
  endif()

  get_filename_component(input ${ARG_INPUT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(output ${ARG_OUTPUT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})

  set(options)
  foreach(name IN LISTS ARG_SHARE)
    list(APPEND options --share ${name})
  endforeach()
  if(ARG_SHARE_AUTO)
    list(APPEND options --share-auto)
  endif()
  foreach(naming IN LISTS ARG_NAME)
    list(APPEND options --name ${naming})
  endforeach()
  set(names_files)
  foreach(names_file IN LISTS ARG_NAMES_FROM)
    get_filename_component(names_file ${names_file} ABSOLUTE
                           BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND options --names-from ${names_file})
    list(APPEND names_files ${names_file})
  endforeach()
  if(ARG_STRATEGY)
    list(APPEND options --strategy ${ARG_STRATEGY})
  endif()
  if(ARG_LAYOUT)
    list(APPEND options --layout ${ARG_LAYOUT})
  endif()
  if(ARG_ALIGNMENT)
    list(APPEND options --alignment ${ARG_ALIGNMENT})
  endif()
  foreach(limit IN LISTS ARG_ARENA_LIMIT)
    list(APPEND options --arena-limit ${limit})
  endforeach()
  if(ARG_WRITE_NAMES)
    list(APPEND options --write-names)
  endif()
  if(ARG_ALLOW_POSITION_NAMES)
    list(APPEND options --allow-position-names)
  endif()

  get_filename_component(output_dir ${output} DIRECTORY)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${output_dir}
    COMMAND $<TARGET_FILE:pteshare::pteshare> rewrite ${input} -o ${output} ${options}
    DEPENDS ${input} ${names_files} $<TARGET_FILE:pteshare::pteshare>
    COMMENT "pteshare: rewriting ${ARG_INPUT} -> ${ARG_OUTPUT}"
    VERBATIM)
  if(ARG_TARGET)
    add_custom_target(${ARG_TARGET} ALL DEPENDS ${output})
  endif()
endfunction()
