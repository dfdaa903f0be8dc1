# Find Kokkos (>= 3.4) and repair a known packaging bug.
#
# Debian 12's libtrilinos-kokkos-dev (Kokkos 3.4 inside Trilinos 13.2) exports Kokkos::kokkos with
# INTERFACE_INCLUDE_DIRECTORIES = <prefix>/lib/include, a directory that does not exist; the headers
# are in <prefix>/include/trilinos (which the same config file reports in Kokkos_INCLUDE_DIRS).
# We detect an include directory that does not exist and replace it with the ones that do.
# A regular Kokkos 4.x install (Spack, modules, CMake build) passes through untouched.

# rsmcConfig.cmake has found Kokkos already (with find_dependency, so that a missing Kokkos makes
# find_package(rsmc) fail instead of aborting the caller's configure); only the repair below is needed.
if(NOT Kokkos_FOUND)
  find_package(Kokkos 3.4 REQUIRED)
endif()

if(TARGET Kokkos::kokkos)
  get_target_property(_rsmc_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
  set(_rsmc_kokkos_fixed "")
  set(_rsmc_kokkos_broken FALSE)
  foreach(_dir IN LISTS _rsmc_kokkos_inc)
    if(_dir MATCHES "^\\$<" OR EXISTS "${_dir}")
      list(APPEND _rsmc_kokkos_fixed "${_dir}")
    else()
      set(_rsmc_kokkos_broken TRUE)
      message(STATUS "rsmc: Kokkos::kokkos names a missing include directory '${_dir}'; dropping it")
    endif()
  endforeach()
  if(_rsmc_kokkos_broken)
    foreach(_dir IN LISTS Kokkos_INCLUDE_DIRS)
      get_filename_component(_dir "${_dir}" REALPATH)
      if(EXISTS "${_dir}/Kokkos_Core.hpp")
        list(APPEND _rsmc_kokkos_fixed "${_dir}")
        message(STATUS "rsmc: using Kokkos headers from '${_dir}' instead")
      endif()
    endforeach()
    if(NOT _rsmc_kokkos_fixed)
      message(FATAL_ERROR "rsmc: the Kokkos CMake package has no valid include directory; "
                          "set Kokkos_DIR to a working Kokkos >= 3.4 install")
    endif()
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_rsmc_kokkos_fixed}")
    # The same package lists bare library names; make sure the linker can find them.
    if(Kokkos_LIBRARY_DIRS)
      get_filename_component(_libdir "${Kokkos_LIBRARY_DIRS}" REALPATH)
      set_property(TARGET Kokkos::kokkos APPEND PROPERTY INTERFACE_LINK_DIRECTORIES "${_libdir}")
    endif()
  endif()
else()
  message(FATAL_ERROR "rsmc: find_package(Kokkos) succeeded but defined no Kokkos::kokkos target")
endif()
