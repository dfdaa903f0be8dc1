# rsmc_check_model(NAME HEADERS header... [INCLUDE_DIRS dir...] [TARGET target])
#
# Checks, as part of the build, that a model's kernels can run on a GPU and give the same bits there
# as on the host (cmake/rsmc_check_model.py, docs/models.md): initial, transition, log_likelihood,
# simulate_observation and every function of the model's headers they call are RSMC_HOST_DEVICE, and
# call exp, log, pow, ... from rsmc::math only. Adds the target NAME (built by default; TARGET, e.g.
# the program that uses the model, then depends on it): its build fails with one line per problem,
# naming the file, line, member and rule. INCLUDE_DIRS: where the model's own `#include "..."` are.
#
# When nvcc is found (CMAKE_CUDA_COMPILER, /usr/local/cuda/bin or PATH) and rsmc's Kokkos has no CUDA
# backend, a model that passes the scan is also compiled for the device (a kernel calling the four
# members), so that nvcc's own checks apply on a machine without a GPU. With a CUDA Kokkos the
# program's own build compiles the model for the device. RSMC_CHECK_MODEL_DEVICE=OFF leaves the
# device compile out (it takes tens of seconds).
set(_RSMC_CHECK_MODEL_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/rsmc_check_model.py")

function(rsmc_check_model name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET" "HEADERS;INCLUDE_DIRS")
  if(NOT arg_HEADERS)
    message(FATAL_ERROR "rsmc_check_model(${name}): HEADERS is required (the model's header files)")
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    message(WARNING "rsmc_check_model(${name}): no python3 found, so the model is not checked")
    return()
  endif()
  set(headers "")
  foreach(header IN LISTS arg_HEADERS)
    get_filename_component(header "${header}" ABSOLUTE)
    list(APPEND headers "${header}")
  endforeach()
  set(command "${Python3_EXECUTABLE}" "${_RSMC_CHECK_MODEL_SCRIPT}" ${headers})
  foreach(dir IN LISTS arg_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND command -I "${dir}")
  endforeach()

  option(RSMC_CHECK_MODEL_DEVICE "rsmc_check_model: also compile models for the device when nvcc is found" ON)
  set(nvcc "${CMAKE_CUDA_COMPILER}")
  if(NOT nvcc)
    find_program(RSMC_NVCC nvcc PATHS /usr/local/cuda/bin)
    set(nvcc "${RSMC_NVCC}")
  endif()
  if(RSMC_CHECK_MODEL_DEVICE AND nvcc AND NOT Kokkos_ENABLE_CUDA)
    # The include directories of rsmc::models and everything it links (Kokkos, Random123, MPI, HDF5).
    set(models_target rsmc::models)
    if(TARGET rsmc_models)
      set(models_target rsmc_models)  # inside rsmc's own build
    endif()
    set(flags "-I$<JOIN:$<TARGET_PROPERTY:${models_target},INTERFACE_INCLUDE_DIRECTORIES>,|-I>")
    if(Kokkos_ENABLE_OPENMP)
      string(APPEND flags "|-Xcompiler=-fopenmp")
    endif()
    list(APPEND command --nvcc "${nvcc}" "--device-flags=${flags}")
  endif()

  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${name}.checked")
  add_custom_command(OUTPUT "${stamp}"
                     COMMAND ${command}
                     COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
                     DEPENDS ${headers} "${_RSMC_CHECK_MODEL_SCRIPT}"
                     COMMENT "rsmc_check_model: ${name}"
                     VERBATIM)
  add_custom_target(${name} ALL DEPENDS "${stamp}")
  if(arg_TARGET)
    add_dependencies(${arg_TARGET} ${name})
  endif()
endfunction()
