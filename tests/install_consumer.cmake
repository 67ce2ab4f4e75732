# CTest script: install the built spmvkit into a fresh prefix, then configure, build and run
# examples/consumer against it through find_package(spmvkit).
set(prefix ${BUILD_DIR}/install-test)
file(REMOVE_RECURSE ${prefix} ${BUILD_DIR}/consumer-test)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer
                        -B ${BUILD_DIR}/consumer-test -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
                        -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR}/consumer-test RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
execute_process(COMMAND ${BUILD_DIR}/consumer-test/consumer RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer failed: ${rc}")
endif()
