# Writes the fuzz seeds into SEED_DIR: every program and bundled program of
# CORPUS_DIR up to 64 KiB (larger ones would slow every execution for little new coverage;
# libFuzzer's default -max_len is the largest seed), and small pte-synth
# programs covering each shape the tool handles: shared caches at different
# offsets, a device arena, the legacy shared arena, unnamed caches, a CNN
# without state, an extra segment.
#   cmake -DSEED_DIR=... -DCORPUS_DIR=... -DPTE_SYNTH=... -P make_seeds.cmake
file(REMOVE_RECURSE ${SEED_DIR})
file(MAKE_DIRECTORY ${SEED_DIR})

set(max_seed_bytes 65536)
file(GLOB corpus_files ${CORPUS_DIR}/*.pte ${CORPUS_DIR}/*.bpte)
set(copied 0)
foreach(f ${corpus_files})
  file(SIZE ${f} bytes)
  if(bytes LESS_EQUAL max_seed_bytes)
    file(COPY ${f} DESTINATION ${SEED_DIR})
    math(EXPR copied "${copied} + 1")
  endif()
endforeach()

# One pte-synth command line per entry.
set(tiny_llm "--layers 1 --heads 1 --head-dim 4 --max-seq 8 --vocab 8")
set(synth_runs
  "llm ${tiny_llm} -o synth_llm.pte"
  "llm --layers 2 --heads 2 --head-dim 4 --max-seq 16 --vocab 16 -o synth_llm2.pte"
  "llm ${tiny_llm} --device-arena -o synth_llm_device.pte"
  "llm ${tiny_llm} --legacy-shared -o synth_llm_legacy.pte"
  "llm ${tiny_llm} --unnamed -o synth_llm_unnamed.pte"
  "llm ${tiny_llm} --extra-segment 64 -o synth_llm_extra_segment.pte"
  "cnn --layers 1 --channels 2 --size 4x4 --classes 2 -o synth_cnn.pte")
set(made 0)
foreach(run ${synth_runs})
  separate_arguments(args UNIX_COMMAND "${run}")
  execute_process(COMMAND ${PTE_SYNTH} ${args} WORKING_DIRECTORY ${SEED_DIR}
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "pte-synth ${run} failed: ${status}")
  endif()
  math(EXPR made "${made} + 1")
endforeach()
message(STATUS "fuzz seeds: ${copied} corpus programs <= ${max_seed_bytes} bytes, ${made} pte-synth programs")
